export async function noop(): Promise<void> {
  return undefined;
}
