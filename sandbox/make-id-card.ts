/**
 * `npm run -s sandbox:id-card -- <name> <birthDate> [residentNumber] [issueDate] > card.png`: an ID-card image the
 * sandbox OCR can read (with the card's number and issue date when given, as a sign-in by ID card needs).
 */
import { makeIdCardPng } from './id-card-image';

const [name, birthDate, idNumber, issueDate = '2020-03-02'] = process.argv.slice(2);
if (!name || !/^\d{4}-\d{2}-\d{2}$/.test(birthDate ?? '')) {
  console.error('usage: npm run -s sandbox:id-card -- <name> <YYYY-MM-DD> [residentNumber] [issueDate] > card.png');
  process.exit(2);
}
process.stdout.write(makeIdCardPng({ name, birthDate: birthDate!, ...(idNumber ? { idNumber, issueDate } : {}) }));
