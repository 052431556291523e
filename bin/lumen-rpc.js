#!/usr/bin/env node
// Node >= 22.18 runs the TypeScript sources directly (type stripping).
import '../src/cli/main.ts';
