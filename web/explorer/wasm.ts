// What a contract's Wasm says about itself without running it: its exported functions and the names
// of its custom sections (contractspecv0, contractmetav0, contractenvmetav0).

export interface WasmSummary { exports: string[]; customSections: string[] }

export function readWasm(bytes: Uint8Array): WasmSummary {
  const summary: WasmSummary = { exports: [], customSections: [] };
  let at = 8; // magic and version
  const leb = (): number => {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = bytes[at++];
      result += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if ((b & 0x80) === 0 || at >= bytes.length) return result;
    }
  };
  const name = (): string => {
    const n = leb();
    const s = new TextDecoder().decode(bytes.subarray(at, at + n));
    at += n;
    return s;
  };
  if (bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) return summary;
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = leb();
    const end = at + size;
    if (id === 0) summary.customSections.push(name());
    else if (id === 7) {
      for (let count = leb(); count > 0; count--) {
        const exported = name();
        const kind = bytes[at++];
        leb();
        if (kind === 0) summary.exports.push(exported);
      }
    }
    at = end;
  }
  return summary;
}
