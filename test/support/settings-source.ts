/** The source text that reads the serve settings: settings.ts and the modules it is split into. */
import { readFileSync } from 'node:fs';

const SETTINGS_SOURCES = [
  'src/server/settings.ts',
  'src/server/limit-settings.ts',
  'src/server/setting-values.ts',
  'src/server/shadow-settings.ts',
];

export function settingsSource(): string {
  return SETTINGS_SOURCES.map((file) => readFileSync(file, 'utf8')).join('\n');
}
