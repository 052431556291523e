// Every developer method (lumen_*), one file each.
import type { DevMethod } from './types.ts';
import { closeLedgers } from './closeLedgers.ts';
import { setCloseMode } from './setCloseMode.ts';
import { upgradeConfig } from './upgradeConfig.ts';
import { setBaseFee } from './setBaseFee.ts';
import { setBaseReserve } from './setBaseReserve.ts';

export const devMethods: DevMethod[] = [
  closeLedgers,
  setCloseMode,
  upgradeConfig,
  setBaseFee,
  setBaseReserve,
];
