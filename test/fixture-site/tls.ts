/**
 * A throwaway self-signed certificate for the fixture site's HTTPS server.
 *
 * It is made at start instead of committed so that no private key lives in the repository and
 * no certificate can expire under a long-lived checkout.
 */
import { generate } from 'selfsigned';

/** PEM-encoded key pair for `https.createServer`. */
export interface CertificatePair {
  /** PKCS#8 private key, PEM. */
  key: string;
  /** X.509 certificate, PEM. */
  cert: string;
}

/** Makes a P-256 certificate for 127.0.0.1, localhost and ::1, valid from yesterday for a year. */
export async function makeSelfSignedCert(): Promise<CertificatePair> {
  const dayMs = 24 * 60 * 60 * 1000;
  const now = Date.now();
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    // EC keys are generated in milliseconds; a 2048-bit RSA key would slow every test run.
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    // Back-dated a day so a clock that is slightly behind still accepts the certificate.
    notBeforeDate: new Date(now - dayMs),
    notAfterDate: new Date(now + 365 * dayMs),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
          { type: 2, value: 'localhost' },
        ],
      },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}
