export async function runMcpServer(_t: unknown): Promise<void> { throw new Error('todo'); }
