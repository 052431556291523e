import { createAccounts, runPayments } from './payments.ts';
import { startServer } from './serverProcess.ts';
import { runLoad, rpcBody } from './httpLoad.ts';
const what = process.argv[2];
process.env.NODE_OPTIONS = `--cpu-prof --cpu-prof-dir=/tmp/prof-${what}`;
const node = await startServer();
delete process.env.NODE_OPTIONS;
if (what === 'pay') {
  const acc = await createAccounts(node.url, 2000);
  console.log(await runPayments(node.url, acc, 2));
} else {
  console.log(await runLoad({ url: node.url + '/', body: rpcBody('getLatestLedger'), connections: 64, durationSec: 8 }));
}
await node.stop();
