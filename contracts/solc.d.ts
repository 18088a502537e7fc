/** The part of solc-js (npm `solc`, which ships no types) that contracts/build.ts uses. */
declare module 'solc' {
  const solc: {
    version(): string;
    compile(input: string, callbacks?: { import: (path: string) => { contents: string } | { error: string } }): string;
  };
  export default solc;
}
