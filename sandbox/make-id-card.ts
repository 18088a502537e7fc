/**
 * `npm run -s sandbox:id-card -- <name> <birthDate> [residentNumber] [issueDate] [licenseNumber licenseSerial] > card.png`:
 * an ID-card image the sandbox's CLOVA OCR can read (with the card's number and issue date when given, as a sign-in
 * by ID card needs); with a licence number and serial, a driver's licence.
 */
import { makeIdCardPng } from './id-card-image';

const [name, birthDate, idNumber, issueDate = '2020-03-02', licenseNumber, licenseSerial] = process.argv.slice(2);
if (!name || !/^\d{4}-\d{2}-\d{2}$/.test(birthDate ?? '') || !!licenseNumber !== !!licenseSerial) {
  console.error(
    'usage: npm run -s sandbox:id-card -- <name> <YYYY-MM-DD> [residentNumber] [issueDate] [licenseNumber licenseSerial] > card.png',
  );
  process.exit(2);
}
process.stdout.write(
  makeIdCardPng({
    name,
    birthDate: birthDate!,
    ...(idNumber ? { idNumber, issueDate } : {}),
    ...(licenseNumber ? { kind: 'driver_license' as const, licenseNumber, licenseSerial } : {}),
  }),
);
