import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DESCRIPTOR_FILE, descriptorFromProtos, descriptorModule } from './bigtable-descriptor-source.js';

/** `npx tsx src/server/testing/write-bigtable-descriptor.ts`: writes src/server/bigtable-descriptor.ts from google-proto-files. */
const text = descriptorModule(descriptorFromProtos());
writeFileSync(DESCRIPTOR_FILE, text);
process.stdout.write(`wrote ${fileURLToPath(DESCRIPTOR_FILE)} (${text.length.toLocaleString('en-US')} characters)\n`);
