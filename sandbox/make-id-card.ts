/** `npm run -s sandbox:id-card -- <name> <birthDate> > card.png`: an ID-card image the sandbox OCR can read. */
import { makeIdCardPng } from './id-card-image';

const [name, birthDate] = process.argv.slice(2);
if (!name || !/^\d{4}-\d{2}-\d{2}$/.test(birthDate ?? '')) {
  console.error('usage: npm run -s sandbox:id-card -- <name> <YYYY-MM-DD> > card.png');
  process.exit(2);
}
process.stdout.write(makeIdCardPng({ name, birthDate: birthDate! }));
