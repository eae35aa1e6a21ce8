// Where Tern keeps each thing in its data directory: named once, for the processes that write them and for the
// backup that copies them (core/backup).
import { join } from 'node:path';

/** The master key that seals secrets at rest (shared/secret-box.ts). */
export const masterKeyFile = (dataDir: string): string => join(dataDir, 'keys', 'master.key');

/** The self-signed TLS pair made on first start when no certificate is configured (shared/tls.ts). */
export const selfSignedTlsDir = (dataDir: string): string => join(dataDir, 'tls');

/** The certificate and key of a TLS pair kept in `dir` (the self-signed pair's directory, or its staging one). */
export const tlsPairIn = (dir: string): { cert: string; key: string } => ({ cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem') });

/**
 * Where releases before schema 36 kept the bodies of reports received on the MX port. Bodies are in the store
 * now; the MTA imports a spool left here at start and removes it (mta/feedback/spool-import.ts).
 */
export const inboundSpoolDir = (dataDir: string): string => join(dataDir, 'spool-inbound');
