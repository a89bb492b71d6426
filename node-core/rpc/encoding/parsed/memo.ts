/** jsonParsed for SPL Memo instructions: the memo text itself (Agave `parse_memo`). */
import { decodeMemo } from '../../../runtime/programs/memo.ts';
import type { InstructionParser } from './types.ts';

export const parseMemoInstruction: InstructionParser = (data) => decodeMemo(data);
