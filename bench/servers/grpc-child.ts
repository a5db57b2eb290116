/** A gRPC bench server's life: its target on one stdout line, then it runs until stdin closes. */
export function announce(target: string, close: () => unknown): void {
  process.stdout.write(`${target}\n`);
  const stop = async (): Promise<void> => {
    await close();
    process.exit(0);
  };
  process.stdin.on('end', () => void stop());
  process.stdin.on('close', () => void stop());
  process.stdin.resume();
  process.on('SIGTERM', () => void stop());
}
