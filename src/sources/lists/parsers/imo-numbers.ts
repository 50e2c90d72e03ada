/**
 * IMO numbers as the lists write them. A ship's IMO number and a company's (the IMO Unique Company
 * and Registered Owner Identification Number, seven digits as well, without the ship's check
 * digit) are both identifiers of kind `imo`, whatever label a list files them under: OFAC writes
 * "Vessel Registration Identification IMO 9187629", "Identification Number IMO 5342883" and
 * "Company Number IMO 5434358" in its Remarks (the CSL repeats them as "IMO 5342883, Identification
 * Number"); the UN, the UK and the EU say it in prose ("IMO number: 5571322.", "International
 * Maritime Organization (IMO) Number: 1790183.", "(IMO number):7408873").
 */

/** A value written as an IMO number ("IMO 5342883", "IMO: 9187629", "IMO No. 8606173"). */
const IMO_VALUE = /^IMO(?:\s*(?:number|no\.?))?[\s:.#-]*(\d[\d\s]*)$/i;

/**
 * The number of a value written as an IMO number, without its prefix; undefined for any other
 * value. OFAC also files a ship's bare seven digits under "Vessel Registration Identification"
 * ("8606173"), where another value is a national register's number ("RS 150443", "15411 (Malta)").
 */
export function imoNumberOf(value: string, label = ''): string | undefined {
  const prefixed = IMO_VALUE.exec(value.trim())?.[1]?.trim();
  if (prefixed !== undefined) return prefixed;
  return VESSEL_REGISTRATION.test(label) && /^\d{7}$/.test(value.trim()) ? value.trim() : undefined;
}

const VESSEL_REGISTRATION = /^vessel registration identification$/i;

/**
 * "IMO number: 5571322", "(IMO number):7408873", "(IMO) Number: 1790183", "Company Number IMO
 * 5434358", "Registered Ship Owner IMO 5987860": a statement of the record's own number, its seven
 * digits right after it. Prose that only mentions a number is not taken: "the following vessels
 * with IMO Number: (a) Chol Ryong 8606173" and "its tanker (IMO 9123456)" name other parties' ships.
 */
const IMO_IN_TEXT =
  /(?:\bIMO\)?\s*(?:number|no\.?)\)?\s*[:#]?|\b(?:Company Number|Owner) IMO)\s*(\d{7})(?!\d)/gi;

/** The IMO numbers that a list's free text (remarks, other information) states, each once. */
export function imoNumbersIn(text: string | undefined): string[] {
  if (!text) return [];
  return [...new Set([...text.matchAll(IMO_IN_TEXT)].map((m) => m[1]!))];
}
