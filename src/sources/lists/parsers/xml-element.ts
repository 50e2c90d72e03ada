import { clean } from '../../entity-building/text.js';
import type { RawRecord, RawValue } from '../../list-entity.js';

/** One element of an XML record, held in memory only while that record is mapped. */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

export function childrenNamed(el: XmlElement, name: string): XmlElement[] {
  return el.children.filter((child) => child.name === name);
}

export function firstChild(el: XmlElement | undefined, name: string): XmlElement | undefined {
  return el?.children.find((child) => child.name === name);
}

/** Trimmed text of the first child called `name`, or undefined when absent or blank. */
export function childText(el: XmlElement | undefined, name: string): string | undefined {
  return textOf(firstChild(el, name));
}

/** Cleaned text (whitespace collapsed, null markers dropped) of an element. */
export function textOf(el: XmlElement | undefined): string | undefined {
  return el ? clean(el.text) : undefined;
}

/** Texts of every `name` grandchild under every `parent` child (`<NATIONALITY><VALUE>`). */
export function nestedTexts(el: XmlElement, parent: string, name: string): string[] {
  const out: string[] = [];
  for (const group of childrenNamed(el, parent)) {
    for (const child of childrenNamed(group, name)) {
      const text = textOf(child);
      if (text) out.push(text);
    }
  }
  return out;
}

/** Cleaned attribute value, undefined when absent, blank or a null marker ('-'). */
export function attr(el: XmlElement | undefined, name: string): string | undefined {
  return el ? clean(el.attrs[name]) : undefined;
}

/**
 * The element as plain JSON for `raw`: attributes and children become keys (repeated children an
 * array), a leaf becomes its text; empty values are left out so the details stay readable.
 */
export function elementToRaw(el: XmlElement): RawRecord {
  const out: RawRecord = {};
  for (const [key, value] of Object.entries(el.attrs)) {
    if (value.trim() !== '' && key !== '__proto__') out[key] = value.trim();
  }
  for (const child of el.children) {
    const value = rawValue(child);
    // A hostile file could name an element __proto__; it must not reach the object's prototype.
    if (value === undefined || child.name === '__proto__') continue;
    const existing = out[child.name];
    if (existing === undefined) out[child.name] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else out[child.name] = [existing, value];
  }
  const text = el.text.trim();
  if (text && el.children.length > 0) out['#text'] = text;
  return out;
}

function rawValue(el: XmlElement): RawValue | undefined {
  if (el.children.length === 0 && Object.values(el.attrs).every((v) => v.trim() === '')) {
    const text = el.text.trim();
    return text === '' ? undefined : text;
  }
  const record = elementToRaw(el);
  if (el.children.length === 0 && el.text.trim() !== '') record['#text'] = el.text.trim();
  return Object.keys(record).length === 0 ? undefined : record;
}
