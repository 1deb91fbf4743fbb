import { spawn } from 'node:child_process'
import { createHmac } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser, type Page } from 'playwright-core'

const SERVER = fileURLToPath(new URL('../../gateway/dist/server.js', import.meta.url))
const RESULTS = fileURLToPath(new URL('../test-results/', import.meta.url))
const ADMIN = { username: 'admin', password: 'console-test-password-1' }

/** The tap test object, as far as these helpers use it. */
interface Tap {
  name: string
  teardown(fn: () => unknown): void
  afterEach(fn: (t: { name: string; passing(): boolean }) => unknown): void
}

/** The all-in-one gateway on a loopback port 0 with a fresh data dir; resolves once it logs its address. */
async function startGateway(t: Tap): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'quire-console-'))
  const child = spawn(process.execPath, [SERVER], {
    env: {
      PATH: process.env.PATH ?? '',
      QUIRE_HOST: '127.0.0.1',
      QUIRE_PORT: '0',
      QUIRE_DATA_DIR: dataDir,
      QUIRE_LOG_LEVEL: 'info',
      QUIRE_PROCESSES: '1',
      QUIRE_ADMIN_USERNAME: ADMIN.username,
      QUIRE_ADMIN_PASSWORD: ADMIN.password,
      // Two cores run the gateways and browsers of parallel test files: no 503 for a slow event loop here.
      QUIRE_MAX_EVENT_LOOP_DELAY_MS: '60000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  t.teardown(async () => {
    if (child.exitCode === null) child.kill('SIGTERM')
    await exited
    rmSync(dataDir, { recursive: true, force: true })
  })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the gateway exited with ${code}: ${stderr}`)))
    createInterface({ input: child.stdout }).on('line', (line) => {
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line)
      if (match?.[1]) resolve(match[1])
    })
  })
}

export interface Console {
  url: string
  page: Page
  browser: Browser
  /** Messages Chromium logged about the Content-Security-Policy: the console must cause none. */
  cspViolations: string[]
  /** The public API as the admin, for arranging what a test needs. */
  api<T = unknown>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<T>
  signIn(page?: Page, username?: string, password?: string): Promise<void>
}

const slug = (name: string) => name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()

/** Starts the gateway and a headless Debian Chromium; a failed subtest leaves a screenshot in test-results/. */
export async function start(t: Tap, viewport = { width: 1280, height: 800 }): Promise<Console> {
  const url = await startGateway(t)
  const browser = await chromium.launch({
    executablePath: process.env.QUIRE_TEST_CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  })
  t.teardown(() => browser.close())
  const page = await browser.newPage({ viewport, baseURL: url, acceptDownloads: true })
  page.setDefaultTimeout(15_000)
  const cspViolations: string[] = []
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text())
  })
  t.afterEach(async (sub) => {
    if (sub.passing()) return
    mkdirSync(RESULTS, { recursive: true })
    await page.screenshot({ path: join(RESULTS, `${slug(t.name)}--${slug(sub.name)}.png`), fullPage: true })
  })

  const login = await fetch(`${url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  })
  const token = ((await login.json()) as { data: { accessToken: string } }).data.accessToken
  const api = async <T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(url + path, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        'environment-id': 'default',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? null : JSON.stringify(body),
    })
    const answer = (await res.json()) as { status?: string; data?: T }
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(answer)}`)
    // GET of one document is the bare document; everything else is enveloped.
    return (answer.status === 'ok' ? answer.data : answer) as T
  }
  const signIn = async (on = page, username = ADMIN.username, password = ADMIN.password) => {
    await on.goto('/console/')
    await on.getByLabel('Username').fill(username)
    await on.getByLabel('Password').fill(password)
    await on.getByRole('button', { name: 'Sign in' }).click()
    // The super-administrator's first visit lands in the first environment listed.
    await on.getByRole('heading', { name: /^Environment / }).waitFor()
  }
  return { url, page, browser, cspViolations, api, signIn }
}

/** RFC 6238 TOTP (SHA-1, 30 s, 6 digits) of a base32 secret, as an authenticator app computes it. */
export function totp(secret: string, now = Date.now()): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
  let bits = ''
  for (const char of secret.replace(/=+$/, '').toUpperCase()) {
    bits += alphabet.indexOf(char).toString(2).padStart(5, '0')
  }
  const key = Buffer.from((bits.match(/.{8}/g) ?? []).map((byte) => parseInt(byte, 2)))
  const counter = Buffer.alloc(8)
  counter.writeBigUInt64BE(BigInt(Math.floor(now / 30_000)))
  const hmac = createHmac('sha1', key).update(counter).digest()
  const offset = hmac[hmac.length - 1]! & 0xf
  return String((hmac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0')
}
