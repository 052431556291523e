// The block explorer's files on the JSON-RPC port (docs/explorer.md): GET /explorer and /explorer/
// answer its page, /explorer/<file> its script and style sheet. The page itself is plain
// TypeScript in web/explorer/, bundled by scripts/build.ts into dist/explorer/ (index.html and one
// script and one style sheet whose names carry a hash of their content); it talks JSON-RPC and
// WebSocket subscriptions to this same origin, so nothing here but the files.
//
// Caching: the page is answered `no-cache` (revalidated by its ETag on each load, so a new build is
// seen at once), the hashed files `immutable` for a year. Each answer carries a Content-Security-Policy
// that lets the page run only its own script and style sheet, connect only to its own origin, and
// be framed by no one; nothing the page shows is ever parsed as HTML (web/explorer/dom.ts).
// Files are read at the first request for one and kept (with their gzip form) for the node's life.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export const EXPLORER_PATH = '/explorer';

export const EXPLORER_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
  "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
].join('; ');

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** A name the build gave a content hash (explorer-5KQ3ZB7D.js): its bytes never change. */
const HASHED_NAME = /-[A-Z0-9]{8}\.[a-z]+$/;
/** Not worth compressing below this. */
const GZIP_MIN_BYTES = 1024;

interface ServedFile {
  bytes: Buffer;
  gzip?: Buffer;
  etag: string;
  contentType: string;
  cacheControl: string;
}

/** Where the built files are: beside the bundle that holds this module (dist/explorer/), or dist/explorer/ seen from the sources. */
export function explorerDir(): string {
  const candidates = [new URL('./explorer/', import.meta.url), new URL('../../dist/explorer/', import.meta.url)].map((u) => fileURLToPath(u));
  return candidates.find((dir) => existsSync(join(dir, 'index.html'))) ?? candidates[candidates.length - 1];
}

/** The files of `dir` as served, by name; undefined when the explorer was not built there. */
export function loadExplorerFiles(dir: string): Map<string, ServedFile> | undefined {
  if (!existsSync(join(dir, 'index.html'))) return undefined;
  const files = new Map<string, ServedFile>();
  for (const name of readdirSync(dir)) {
    const ext = name.slice(name.lastIndexOf('.'));
    const contentType = CONTENT_TYPES[ext];
    if (contentType === undefined) continue;
    const bytes = readFileSync(join(dir, name));
    files.set(name, {
      bytes,
      gzip: bytes.length >= GZIP_MIN_BYTES ? gzipSync(bytes, { level: 9 }) : undefined,
      etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`,
      contentType,
      cacheControl: HASHED_NAME.test(name) ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
  }
  return files;
}

/** Whether an Accept-Encoding header takes gzip (not refused with q=0). */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding.trim() !== 'gzip' && coding.trim() !== '*') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

function send(request: FastifyRequest, reply: FastifyReply, file: ServedFile): FastifyReply {
  reply
    .header('content-type', file.contentType)
    .header('cache-control', file.cacheControl)
    .header('etag', file.etag)
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', EXPLORER_CSP)
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY');
  if (file.gzip) reply.header('vary', 'Accept-Encoding');
  const match = request.headers['if-none-match'];
  if (match !== undefined && match.split(',').some((tag) => tag.trim().replace(/^W\//, '') === file.etag)) {
    return reply.code(304).send();
  }
  if (file.gzip && acceptsGzip(request.headers['accept-encoding'])) {
    return reply.header('content-encoding', 'gzip').send(file.gzip);
  }
  return reply.send(file.bytes);
}

export interface ExplorerRouteOptions {
  /** The built files (default: explorerDir()). */
  dir?: string;
}

/** Mounts the explorer at /explorer (and /explorer/, /explorer/<file>). */
export function registerExplorerRoutes(app: FastifyInstance, options: ExplorerRouteOptions = {}): void {
  const dir = options.dir ?? explorerDir();
  let files: Map<string, ServedFile> | undefined;
  /** The files, read once they exist (a node started before its first build serves them after it). */
  const served = (): Map<string, ServedFile> | undefined => (files ??= loadExplorerFiles(dir));

  const notBuilt = (reply: FastifyReply): FastifyReply => reply.code(503)
    .header('content-type', 'text/plain; charset=utf-8').header('x-content-type-options', 'nosniff')
    .send(`the explorer's files are not built (no ${join(dir, 'index.html')}): run npm run build\n`);

  const page = (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const all = served();
    const index = all?.get('index.html');
    return index ? send(request, reply, index) : notBuilt(reply);
  };
  app.get(EXPLORER_PATH, page);
  app.get(`${EXPLORER_PATH}/`, page);
  app.get<{ Params: { name: string } }>(`${EXPLORER_PATH}/:name`, (request, reply) => {
    const all = served();
    if (all === undefined) return notBuilt(reply);
    const file = all.get(request.params.name);
    if (file === undefined) { reply.callNotFound(); return reply; }
    return send(request, reply, file);
  });
}
