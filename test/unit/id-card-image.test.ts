import { makeIdCardPng, readCardText } from '../../sandbox/id-card-image';
import { sniffImageType } from '../../api/http/multipart';
import { maskPhone } from '../../activities/registration';

describe('ID-card images', () => {
  it('round-trips the card text through a valid PNG', () => {
    const png = makeIdCardPng({ name: '홍길동', birthDate: '1990-01-15' });
    expect(sniffImageType(png)).toBe('image/png');
    expect(readCardText(png)).toEqual({ name: '홍길동', birthDate: '1990-01-15' });
  });

  it('recognises JPEG and refuses other bytes', () => {
    expect(sniffImageType(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]))).toBe('image/jpeg');
    expect(sniffImageType(Buffer.from('GIF89a'))).toBeUndefined();
    expect(readCardText(Buffer.from('not a png'))).toBeUndefined();
  });

  it('masks phone numbers for display', () => {
    expect(maskPhone('01012345678')).toBe('010-****-5678');
    expect(maskPhone('010-1234-5678')).toBe('010-****-5678');
    expect(maskPhone('123')).toBe('***');
  });
});
