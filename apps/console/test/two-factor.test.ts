import { readFileSync } from 'node:fs'
import jsqr from 'jsqr'
import t from 'tap'
import { start, totp } from './helper.js'

// A CommonJS module whose types declare `export default`: under NodeNext the function is its `default`.
const jsQR = jsqr.default

const c = await start(t)
const { page } = c
const assets: string[] = []
page.on('request', (request) => {
  if (request.url().includes('/console/assets/')) assets.push(new URL(request.url()).pathname)
})
await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: c.url })
await c.signIn()

/** The QR code as a camera sees it: the page's SVG drawn on a canvas, read back, decoded by jsQR. */
async function scan(): Promise<string | undefined> {
  const image = await page.getByRole('img', { name: /QR code/ }).evaluate(async (svg) => {
    const url = URL.createObjectURL(new Blob([new XMLSerializer().serializeToString(svg)], { type: 'image/svg+xml' }))
    const img = new Image()
    img.src = url
    await img.decode()
    const canvas = document.createElement('canvas')
    canvas.width = img.naturalWidth
    canvas.height = img.naturalHeight
    const context = canvas.getContext('2d')!
    context.drawImage(img, 0, 0)
    URL.revokeObjectURL(url)
    return {
      width: canvas.width,
      height: canvas.height,
      data: [...context.getImageData(0, 0, canvas.width, canvas.height).data],
    }
  })
  return jsQR(Uint8ClampedArray.from(image.data), image.width, image.height)?.data
}

let codes: string[] = []

t.test('the QR code generator loads only when someone sets up two-factor', async (t) => {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click()
  await page.getByRole('heading', { name: 'Your account' }).waitFor()
  const before = assets.length
  await page.getByRole('button', { name: 'Set up two-factor authentication' }).click()
  await page.getByRole('img', { name: /QR code/ }).waitFor()
  t.equal(assets.slice(0, before).filter((path) => path.includes('/qr-')).length, 0, 'not in the first load')
  t.equal(assets.slice(before).filter((path) => path.includes('/qr-')).length, 1, 'fetched for the enrolment')
})

t.test('the QR code holds the enrolment link an authenticator app reads', async (t) => {
  const secret = (await page.getByTestId('totp-secret').textContent()) ?? ''
  const link = await page.getByRole('link', { name: 'open in the authenticator app' }).getAttribute('href')
  const scanned = await scan()
  t.equal(scanned, link, 'the same otpauth link')
  t.match(scanned, new RegExp(`^otpauth://totp/.*secret=${secret}`), 'with the key shown beside it')
  await page.getByLabel('Code from the app').fill(totp(secret))
  await page.getByLabel('Your password').fill('console-test-password-1')
  await page.getByRole('button', { name: 'Turn on two-factor authentication' }).click()
  await page.getByTestId('recovery-codes').waitFor()
  codes = (await page.getByTestId('recovery-codes').locator('li').allTextContents()).map((code) => code.trim())
  t.ok(codes.length >= 8, 'recovery codes shown')
})

t.test('copy the recovery codes', async (t) => {
  await page.getByRole('button', { name: 'Copy the codes' }).click()
  await page.getByText('Copied to the clipboard.').waitFor()
  const copied = await page.evaluate(() => navigator.clipboard.readText())
  t.same(copied.trim().split('\n').slice(1), codes, 'every code, one a line, under a heading line')
})

t.test('download the recovery codes', async (t) => {
  const download = page.waitForEvent('download')
  await page.getByRole('button', { name: 'Download the codes' }).click()
  const done = await download
  t.equal(done.suggestedFilename(), 'quire-recovery-codes.txt')
  t.same(
    readFileSync((await done.path())!, 'utf8')
      .trim()
      .split('\n')
      .slice(1),
    codes,
  )
})

t.test('once kept, the codes leave the page for good', async (t) => {
  await page.getByRole('button', { name: 'I have kept them' }).click()
  await page.getByText('Two-factor authentication is on.').waitFor()
  t.equal(await page.getByTestId('recovery-codes').count(), 0)
  t.notMatch(await page.locator('main').textContent(), codes[0] ?? 'never', 'no code left in the page')
})

t.test('a recovery code signs in once', async (t) => {
  const login = (code: string) =>
    fetch(`${c.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'console-test-password-1', code }),
    })
  t.equal((await login(codes[0] ?? '')).status, 200)
  t.equal((await login(codes[0] ?? '')).status, 401, 'not twice')
})

t.test('no Content-Security-Policy violation', async (t) => {
  t.same(c.cspViolations, [])
})
