// The test harness's node databases (test/integration/support/nodeProcess.ts) are removed when the
// test process that made them exits: a full run starts hundreds of nodes, hundreds of MB each.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';

const SUPPORT = new URL('./support/nodeProcess.ts', import.meta.url).href;

test('a test process leaves no node database behind when it exits', () => {
  const script = `
    const { startNodeProcess } = await import(${JSON.stringify(SUPPORT)});
    const node = await startNodeProcess();
    await node.stop();
    console.log(node.dbPath);`;
  const dbPath = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim();
  assert.match(dbPath, /lumen-rpc-.*node\.sqlite$/);
  assert.equal(existsSync(dirname(dbPath)), false, `${dirname(dbPath)} is still there`);
});
