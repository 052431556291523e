// Every developer method (lumen_*), one file each.
import type { DevMethod } from './types.ts';
import { closeLedgers } from './closeLedgers.ts';
import { setCloseMode } from './setCloseMode.ts';
import { snapshot } from './snapshot.ts';
import { revert } from './revert.ts';

export const devMethods: DevMethod[] = [
  closeLedgers,
  setCloseMode,
  snapshot,
  revert,
];
