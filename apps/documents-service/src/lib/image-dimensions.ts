import { imageSizeFromFile } from 'image-size/fromFile'

/** EXIF orientations 5 to 8 turn the picture a quarter: its displayed width is the stored height. */
const QUARTER_TURNS = new Set([5, 6, 7, 8])

/**
 * Width and height as the image is displayed, or `undefined` when the bytes are not an image that
 * `image-size` knows (the declared content type is the client's word, so it is checked, not trusted).
 */
export async function imageDimensions(path: string): Promise<{ width: number; height: number } | undefined> {
  try {
    const { width, height, orientation } = await imageSizeFromFile(path)
    return orientation !== undefined && QUARTER_TURNS.has(orientation)
      ? { width: height, height: width }
      : { width, height }
  } catch {
    return undefined
  }
}
