import { describe, expect, it } from 'vitest';
import { unsafeToolName } from './tool-name-safety.ts';

describe('unsafeToolName', () => {
  it.each([
    ['delete\u200bfile', /do not show \(delete\\u200bfile\)/],
    ['read_file\u202eexe', /do not show \(read_file\\u202eexe\)/],
    ['ｄｅｌｅｔｅ_file', /compatibility characters: it reads as "delete_file"/],
    ['pro\ufb01le', /reads as "profile"/],
    ['cafe\u0301', /reads as "café"/],
    ['d\u0435lete_file', /Latin and Cyrillic scripts/],
    ['\u03bfpen_file', /Greek and Latin scripts/],
  ])('finds %j unsafe', (name, why) => {
    expect(unsafeToolName(name)).toMatch(why);
  });

  it.each(['read_file', 'server__tool.v2', 'удалить_файл', '写入ファイル', '파일_읽기', 'café', 'tool-1'])('lets %j be judged as written', (name) => {
    expect(unsafeToolName(name)).toBeUndefined();
  });
});
