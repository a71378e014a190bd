/**
 * A self-signed certificate made at test time with nothing but node:crypto (which cannot issue
 * certificates itself): the few DER structures of an X.509 v3 certificate, signed with a fresh
 * P-256 key. Enough for a loopback https server whose certificate no client trusts.
 */
import { generateKeyPairSync, sign } from 'node:crypto';

function der(tag: number, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const length = body.length < 0x80 ? Buffer.from([body.length]) : body.length < 0x100 ? Buffer.from([0x81, body.length]) : Buffer.from([0x82, body.length >> 8, body.length & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, body]);
}

const sequence = (...parts: Buffer[]) => der(0x30, ...parts);

function oid(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split('.').map(Number) as [number, number, ...number[]];
  const bytes = [first * 40 + second];
  for (const arc of rest) {
    const groups: number[] = [];
    let value = arc;
    do {
      groups.unshift(value & 0x7f);
      value >>= 7;
    } while (value > 0);
    bytes.push(...groups.map((group, i) => (i < groups.length - 1 ? group | 0x80 : group)));
  }
  return der(0x06, Buffer.from(bytes));
}

const utcTime = (date: Date) => der(0x17, Buffer.from(`${date.toISOString().slice(2, 19).replace(/[-:T]/g, '')}Z`));
const commonName = (name: string) => sequence(der(0x31, sequence(oid('2.5.4.3'), der(0x0c, Buffer.from(name)))));

/** A PEM key and a PEM certificate for `name`, valid from yesterday for a year, signed by itself. */
export function selfSignedCertificate(name = 'voxform test'): { key: string; cert: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const ecdsaWithSha256 = sequence(oid('1.2.840.10045.4.3.2'));
  const now = Date.now();
  const tbs = sequence(
    der(0xa0, der(0x02, Buffer.from([2]))), // version 3
    der(0x02, Buffer.from([0x01, 0x23, 0x45, 0x67])), // serial number
    ecdsaWithSha256,
    commonName(name),
    sequence(utcTime(new Date(now - 86_400_000)), utcTime(new Date(now + 365 * 86_400_000))),
    commonName(name),
    publicKey.export({ type: 'spki', format: 'der' }),
  );
  const signature = sign('sha256', tbs, privateKey);
  const certificate = sequence(tbs, ecdsaWithSha256, der(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const base64 = certificate.toString('base64').replace(/.{64}/g, '$&\n');
  return {
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    cert: `-----BEGIN CERTIFICATE-----\n${base64}${base64.endsWith('\n') ? '' : '\n'}-----END CERTIFICATE-----\n`,
  };
}
