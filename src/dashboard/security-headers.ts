import type { FastifyReply } from 'fastify';

/**
 * Scripts, styles and everything else come from this origin only: no inline script, no inline
 * event handler, no inline style (the chart is SVG geometry, not style attributes), no framing.
 */
export const DASHBOARD_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** Headers of every dashboard response; pages also get `Cache-Control: no-store` unless set otherwise. */
export function addSecurityHeaders(reply: FastifyReply): void {
  reply.header('Content-Security-Policy', DASHBOARD_CONTENT_SECURITY_POLICY);
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('X-Frame-Options', 'DENY');
  reply.header('Referrer-Policy', 'same-origin');
  reply.header('Cross-Origin-Opener-Policy', 'same-origin');
  reply.header('Cross-Origin-Resource-Policy', 'same-origin');
  // Pages show account data (and once, a new key): never stored by the browser or a proxy. Static
  // files set their own (revalidated) caching.
  if (!reply.hasHeader('Cache-Control')) reply.header('Cache-Control', 'no-store');
}
