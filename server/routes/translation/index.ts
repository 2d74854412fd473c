import { CONFIG_ROOT, MAX_XML_CHARS, translationRoutes as R } from '../../../shared/routes/translation.ts';
import { string } from '../../../shared/http/params.ts';
import { checkWellFormed } from '../../../shared/xml/well-formed.ts';
import type { Ctx } from '../../kernel/context.ts';
import { HttpError } from '../../kernel/errors.ts';
import { implement, type Endpoint } from '../../http/registry.ts';
import { ok } from '../../kernel/result.ts';
import { validateArgs } from '../../http/validate.ts';
import { deleteOption, getOption, setOption } from '../../db/repos/site-options.ts';

const OPTION = 'translation.custom_xml_config';

/** `content` is not a declared argument (the original declares none) but gets the same checks and errors. */
function content(ctx: Ctx): string {
  return validateArgs({ content: string({ required: true, maxLength: MAX_XML_CHARS }) }, ctx.req.params).content as string;
}

export interface LibXmlError {
  level: number;
  code: number;
  column: number;
  message: string;
  file: string;
  line: number;
}

/** The errors of a configuration document, first one only (parsing stops there), as libxml2 reports them. */
export function xmlErrors(xml: string): LibXmlError[] {
  const r = checkWellFormed(xml);
  if (!r.ok) return [{ level: 3, code: r.error.code, column: r.error.column, message: r.error.message, file: '', line: r.error.line }];
  if (r.root !== CONFIG_ROOT) {
    return [
      {
        level: 2,
        code: 1845,
        column: r.rootColumn,
        message: `Element '${r.root}': No matching global declaration available for the validation root.`,
        file: '',
        line: r.rootLine,
      },
    ];
  }
  return [];
}

const read = implement(R.read, async (_input, ctx) => ok((await getOption(ctx.db, OPTION)) ?? ''));

const update = implement(R.update, async (_input, ctx) => {
  const xml = content(ctx);
  if (xml.trim() === '') {
    await deleteOption(ctx.db, OPTION);
    return ok('');
  }
  const errors = xmlErrors(xml);
  if (errors.length) {
    const [first] = errors;
    throw new HttpError(400, 'invalid_xml', `The XML is not valid: ${first.message} (line ${first.line}, column ${first.column}).`, {
      line: first.line,
      column: first.column,
      errors,
    });
  }
  await setOption(ctx.db, OPTION, xml);
  return ok(xml);
});

const validate = implement(R.validate, (_input, ctx) => ok(xmlErrors(content(ctx))));

export const translationEndpoints: Endpoint[] = [read, update, validate];
