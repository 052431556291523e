// The README's pictures of the explorer (docs/images/explorer-transaction.png and
// explorer-contract.png): a standalone node, a counter and a contract calling it deployed and
// called through the JS SDK, and the two pages in headless Chromium (Debian's; CHROMIUM_PATH
// elsewhere), 1200x800. Run after a build: node scripts/explorerScreenshots.ts
import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { addr, fundedAccount, invoke, invokeOp, sym, u32, u64, uploadAndDeploy, startContractNode } from '../test/integration/support/contracts.ts';
import { server } from '../test/integration/support/sdk.ts';

const OUT = new URL('../docs/images/', import.meta.url);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const node = await startContractNode();
try {
  const s = server(node.url);
  const kp = await fundedAccount(node.url);
  const { contractId: counter } = await uploadAndDeploy(s, kp, 'counter');
  const { contractId: caller } = await uploadAndDeploy(s, kp, 'caller');
  const { contractId: storage } = await uploadAndDeploy(s, kp, 'storage');
  await invoke(s, kp, invokeOp(counter, 'increment', u32(1)));
  await invoke(s, kp, invokeOp(counter, 'increment', u32(2)));
  const call = await invoke(s, kp, invokeOp(caller, 'call_increment', addr(counter), u32(5)));
  await invoke(s, kp, invokeOp(storage, 'put_persistent', sym('balance'), u64(1_000)));
  await invoke(s, kp, invokeOp(storage, 'put_temporary', sym('session'), u64(42)));

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    mkdirSync(OUT, { recursive: true });

    await page.goto(`${node.url}/explorer#/tx/${call.hash}`);
    // every frame of the call tree open (the trace's when the node serves lumen_traceTransaction)
    const tree = page.locator('#trace .call-tree').first();
    await tree.locator('details.frame').first().waitFor();
    for (let closed = tree.locator('details.frame:not([open]) > summary'); await closed.count() > 0;) await closed.first().click();
    // from the top down to the end of the call tree
    const bottom = await tree.evaluate((el) => el.getBoundingClientRect().bottom + (globalThis as any).scrollY);
    await page.screenshot({ path: new URL('explorer-transaction.png', OUT).pathname, fullPage: true, clip: { x: 0, y: 0, width: 1200, height: Math.ceil(bottom + 16) } });

    await page.goto(`${node.url}/explorer#/contract/${counter}`);
    await page.locator('table.events tbody tr').nth(2).waitFor();
    await page.locator('.exports').waitFor();
    await page.screenshot({ path: new URL('explorer-contract.png', OUT).pathname });
  } finally {
    await browser.close();
  }
  console.log(`wrote ${new URL('explorer-transaction.png', OUT).pathname} and explorer-contract.png`);
} finally {
  await node.stop();
}
