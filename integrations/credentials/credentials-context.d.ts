declare module '@digitalbazaar/credentials-context' {
  /** The W3C credential JSON-LD contexts, by URL (the package's CommonJS build). */
  export const contexts: Map<string, object>;
}
