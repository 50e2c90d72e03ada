import { addName, joinName } from '../../entity-building/entity-draft.js';
import type { ListEntity, NameType } from '../../list-entity.js';
import { childrenNamed, childText, firstChild, type XmlElement } from './xml-element.js';

const ALIAS_TYPES: Readonly<Record<string, NameType>> = { 'A.K.A.': 'aka', 'F.K.A.': 'fka', 'N.K.A.': 'aka' };

function nameType(name: XmlElement): NameType {
  if (childText(name, 'isPrimary') === 'true') return 'primary';
  if (childText(name, 'isLowQuality') === 'true') return 'weak_aka';
  return ALIAS_TYPES[childText(name, 'aliasType') ?? ''] ?? 'aka';
}

/**
 * Adds an Enhanced XML entity's names: each name's primary translation with the name's type, and
 * its other translations (Cyrillic, Chinese, ...) as original-script names. Individuals are put in
 * reading order from their formatted first and last names.
 */
export function addEnhancedNames(entity: ListEntity, el: XmlElement): void {
  const names = childrenNamed(firstChild(el, 'names') ?? el, 'name');
  const ordered = [...names].sort(
    (a, b) => Number(nameType(b) === 'primary') - Number(nameType(a) === 'primary'),
  );
  for (const name of ordered) {
    const type = nameType(name);
    for (const translation of childrenNamed(firstChild(name, 'translations') ?? name, 'translation')) {
      const primaryTranslation = childText(translation, 'isPrimary') === 'true';
      const latin = (childText(translation, 'script') ?? 'Latin') === 'Latin';
      const given = childText(translation, 'formattedFirstName');
      const family = childText(translation, 'formattedLastName');
      const full =
        entity.kind === 'person' && given && family
          ? joinName(given, family)
          : childText(translation, 'formattedFullName');
      const translatedType = primaryTranslation || latin ? type : 'original_script';
      addName(entity, {
        full,
        type: entity.names.length === 0 ? 'primary' : translatedType === 'primary' ? 'aka' : translatedType,
        ...(entity.kind === 'person' && given && family && { parts: { given, family } }),
      });
    }
  }
}
