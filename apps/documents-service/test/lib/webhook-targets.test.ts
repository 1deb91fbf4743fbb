import t from 'tap'
import { isPublicAddress, targetRefusal } from '../../src/lib/webhook-targets.js'

t.test('only public unicast addresses are public', async (t) => {
  for (const address of [
    '127.0.0.1',
    '::1',
    '10.0.0.1',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::',
    '224.0.0.1',
    'ff02::1',
    '255.255.255.255',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '64:ff9b::7f00:1',
    '2002:7f00:1::',
    'not an address',
  ]) {
    t.notOk(isPublicAddress(address), address)
  }
  for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8']) {
    t.ok(isPublicAddress(address), address)
  }
})

t.test('a target is refused for its scheme, its credentials or a non-public address written in it', async (t) => {
  t.equal(targetRefusal('https://hooks.example.com/x', false), undefined)
  t.equal(targetRefusal('http://localhost:8080/x', false), undefined, 'a name is judged when it is connected to')
  t.match(targetRefusal('ftp://hooks.example.com/x', false), /only http and https/)
  t.match(targetRefusal('https://a:b@hooks.example.com/x', false), /credentials/)
  t.match(targetRefusal('not a url', false), /not a valid URL/)
  t.match(targetRefusal('http://[::ffff:7f00:1]/x', false), /not a public address/)
  t.match(targetRefusal('http://0x7f.1/x', false), /127\.0\.0\.1 is not a public address/)
  t.equal(targetRefusal('http://127.0.0.1/x', true), undefined, 'allowed by the setting')
})
