// Loaded only when someone sets up two-factor authentication (a dynamic import): the first load stays small.
import { generate } from 'lean-qr'
import { toSvgPath } from 'lean-qr/extras/svg'

export interface QrShape {
  /** Modules per side, quiet zone excluded. */
  size: number
  /** The dark modules as one SVG path, drawn by the page itself: no data URL, nothing for the CSP to allow. */
  path: string
}

export function qrShape(text: string): QrShape {
  const code = generate(text)
  return { size: code.size, path: toSvgPath(code) }
}
