import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ASSETS_DIR } from '../../../src/dashboard/paths.js';

const css = fs.readFileSync(`${ASSETS_DIR}/dashboard.css`, 'utf8');
const colours = new Map([...css.matchAll(/--([a-z-]+):\s*(#[0-9a-f]{6})/gi)].map((m) => [m[1]!, m[2]!]));

function luminance(hex: string): number {
  const channels = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16) / 255);
  const [r, g, b] = channels.map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

function contrast(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light! + 0.05) / (dark! + 0.05);
}

/** Every text colour of the stylesheet on every background it is used on. */
const TEXT_PAIRS: [string, string][] = [
  ['text', 'bg'],
  ['muted', 'bg'],
  ['muted', 'surface'],
  ['text', 'surface'],
  ['primary', 'bg'],
  ['on-primary', 'primary'],
  ['on-danger', 'danger'],
  ['on-header', 'header-bg'],
  ['on-warning', 'warning-bg'],
  ['on-alert', 'alert-bg'],
  ['on-alert', 'bg'],
  ['on-notice', 'notice-bg'],
  ['on-notice', 'bg'],
  ['on-revoked', 'revoked-bg'],
  ['on-risk-low', 'risk-low-bg'],
  ['on-risk-medium', 'risk-medium-bg'],
  ['on-risk-high', 'risk-high-bg'],
  ['on-risk-critical', 'risk-critical-bg'],
];

/** Focus rings and chart bars are non-text graphics: WCAG asks 3:1 against what surrounds them. */
const GRAPHIC_PAIRS: [string, string][] = [
  ['focus', 'bg'],
  ['focus-on-header', 'header-bg'],
  ['bar', 'bg'],
  ['line', 'bg'],
];

describe('dashboard colours', () => {
  it.each(TEXT_PAIRS)('text in --%s on --%s has a contrast of at least 4.5:1', (fg, bg) => {
    expect(colours.get(fg), fg).toBeDefined();
    expect(colours.get(bg), bg).toBeDefined();
    expect(contrast(colours.get(fg)!, colours.get(bg)!)).toBeGreaterThanOrEqual(4.5);
  });

  it.each(GRAPHIC_PAIRS)('--%s on --%s has a contrast of at least 3:1', (fg, bg) => {
    expect(contrast(colours.get(fg)!, colours.get(bg)!)).toBeGreaterThanOrEqual(3);
  });
});
