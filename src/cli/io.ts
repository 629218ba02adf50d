/**
 * The streams and environment a command runs with, injected so commands can be run
 * in-process by tests (conventions.md §7).
 */
export interface CliIO {
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
}

export const write = (stream: NodeJS.WritableStream, text: string): void => {
  stream.write(text);
};
