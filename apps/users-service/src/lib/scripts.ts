/**
 * The "highly restrictive" level of Unicode's UTS #39 (section 5.2): every letter of a name comes from one script,
 * or the name keeps to Latin with the scripts written with it in Japan (Han, Hiragana, Katakana), China (Han,
 * Bopomofo) or Korea (Han, Hangul). Characters of every script (Common: digits, punctuation; Inherited: combining
 * marks) go with any. A character's scripts are its Script_Extensions, so a mark shared by two scripts goes with
 * both. This is what refuses `аdmin` with a Cyrillic `а`; it cannot refuse a name written wholly in another
 * script that looks Latin.
 */

/** Every script of Unicode 17 by its long name; a character of none of them (a newer script) is refused. */
const SCRIPT_NAMES = `
Adlam Ahom Anatolian_Hieroglyphs Arabic Armenian Avestan Balinese Bamum Bassa_Vah Batak Bengali Beria_Erfe Bhaiksuki
Bopomofo Brahmi Braille Buginese Buhid Canadian_Aboriginal Carian Caucasian_Albanian Chakma Cham Cherokee
Chorasmian Coptic Cuneiform Cypriot Cypro_Minoan Cyrillic Deseret Devanagari Dives_Akuru Dogra Duployan
Egyptian_Hieroglyphs Elbasan Elymaic Ethiopic Garay Georgian Glagolitic Gothic Grantha Greek Gujarati Gunjala_Gondi
Gurmukhi Gurung_Khema Han Hangul Hanifi_Rohingya Hanunoo Hatran Hebrew Hiragana Imperial_Aramaic
Inscriptional_Pahlavi Inscriptional_Parthian Javanese Kaithi Kannada Katakana Kawi Kayah_Li Kharoshthi
Khitan_Small_Script Khmer Khojki Khudawadi Kirat_Rai Lao Latin Lepcha Limbu Linear_A Linear_B Lisu Lycian Lydian
Mahajani Makasar Malayalam Mandaic Manichaean Marchen Masaram_Gondi Medefaidrin Meetei_Mayek Mende_Kikakui
Meroitic_Cursive Meroitic_Hieroglyphs Miao Modi Mongolian Mro Multani Myanmar Nabataean Nag_Mundari Nandinagari
New_Tai_Lue Newa Nko Nushu Nyiakeng_Puachue_Hmong Ogham Ol_Chiki Ol_Onal Old_Hungarian Old_Italic Old_North_Arabian
Old_Permic Old_Persian Old_Sogdian Old_South_Arabian Old_Turkic Old_Uyghur Oriya Osage Osmanya Pahawh_Hmong Palmyrene
Pau_Cin_Hau Phags_Pa Phoenician Psalter_Pahlavi Rejang Runic Samaritan Saurashtra Sharada Shavian Siddham Sidetic
SignWriting Sinhala Sogdian Sora_Sompeng Soyombo Sundanese Sunuwar Syloti_Nagri Syriac Tagalog Tagbanwa Tai_Le
Tai_Tham Tai_Viet Tai_Yo Takri Tamil Tangsa Tangut Telugu Thaana Thai Tibetan Tifinagh Tirhuta Todhri Tolong_Siki
Toto Tulu_Tigalari Ugaritic Vai Vithkuqi Wancho Warang_Citi Yezidi Yi Zanabazar_Square`

const SCRIPTS = SCRIPT_NAMES.trim()
  .split(/\s+/)
  // A name this Node's Unicode does not know yet is left out (its characters are then refused, never let through).
  .flatMap((name) => {
    try {
      return [{ name, pattern: new RegExp(`\\p{Script_Extensions=${name}}`, 'u') }]
    } catch {
      return []
    }
  })

const ANY_SCRIPT = /^[\p{Script_Extensions=Common}\p{Script_Extensions=Inherited}]$/u

/** The scripts that may be mixed in one name (UTS #39's augmented sets: Japanese, Chinese, Korean). */
const ALLOWED_MIXES: readonly ReadonlySet<string>[] = [
  new Set(['Latin', 'Han', 'Hiragana', 'Katakana']),
  new Set(['Latin', 'Han', 'Bopomofo']),
  new Set(['Latin', 'Han', 'Hangul']),
]

/** Whether `text` is single-script or one of the allowed mixes (see above). */
export function isHighlyRestrictive(text: string): boolean {
  // The scripts present at all, one scan each; most names have one and need nothing more.
  const present = SCRIPTS.filter(({ pattern }) => pattern.test(text))
  // Each character's scripts among those present; characters of any script constrain nothing.
  const sets: Set<string>[] = []
  for (const char of text) {
    if (ANY_SCRIPT.test(char)) continue
    sets.push(new Set(present.filter(({ pattern }) => pattern.test(char)).map(({ name }) => name)))
  }
  if (sets.some((set) => set.size === 0)) return false
  if (present.length <= 1) return true
  const common = present.some(({ name }) => sets.every((set) => set.has(name)))
  return common || ALLOWED_MIXES.some((mix) => sets.every((set) => [...set].some((name) => mix.has(name))))
}
