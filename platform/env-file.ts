import { readFileSync } from 'node:fs';

/** Reads the KEY=<JSON string> lines of an env file written by the embedded stack (.data/dev.env). */
export function readEnvFile(file: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const match = /^([A-Z0-9_]+)=(.*)$/.exec(line);
    if (match) values[match[1]!] = JSON.parse(match[2]!) as string;
  }
  return values;
}

export const formatEnvFile = (values: Record<string, string>): string =>
  `${Object.entries(values)
    .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
    .join('\n')}\n`;
