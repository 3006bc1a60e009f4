/**
 * The `--emails` file: one subscriber address a line (blank lines skipped). Read once
 * before anything is asked, so a file that cannot be read or holds what no request can
 * carry is refused up front, naming the line (never the address); its SHA-256 is part
 * of what a resumed harvest must have been asked.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { forbiddenAt } from '../../xml/escape.ts';
import { addresses } from './plan.ts';

export class EmailsFileError extends Error {
  override readonly name = 'EmailsFileError';
}

export interface EmailsFile {
  readonly file: string;
  readonly count: number;
  readonly sha256: string;
}

export async function readEmailsFile(file: string): Promise<EmailsFile> {
  const hash = createHash('sha256');
  let count = 0;
  try {
    for await (const chunk of createReadStream(file)) hash.update(chunk);
    for await (const { email, line } of addresses(file)) {
      if (forbiddenAt(email) >= 0)
        throw new EmailsFileError(`--emails ${file}: line ${line} holds a character XML cannot carry`);
      count++;
    }
  } catch (error) {
    if (error instanceof EmailsFileError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new EmailsFileError(`--emails ${file}: cannot be read${code ? ` (${code})` : ''}`);
  }
  return { file, count, sha256: hash.digest('hex') };
}
