// A ticket's and a response's fields checked against the portal's configuration (support in the config): the
// product and priority among those configured, text not blank, no more attachments than allowed. Every problem
// is reported at once, worded with the field's name.
import type { Config } from '../../config.js';
import { done, invalidFields, type FieldProblem, type Managed } from '../management-refusals.js';

export const TITLE_MAX = 200;
export const CONTENT_MAX = 20_000;

export interface TicketInput {
  title: string;
  content: string;
  product?: string;
  priority?: string;
  attachmentIds: readonly number[];
}

export interface CheckedTicket {
  title: string;
  content: string;
  product: string | null;
  priority: string;
  attachmentIds: readonly number[];
}

function textProblem(field: string, value: string, max: number): FieldProblem | undefined {
  if (value.trim() === '') return { field, message: `${field} must not be blank` };
  if (value.length > max) return { field, message: `${field} must have at most ${max} characters` };
  return undefined;
}

export function attachmentProblem(config: Config, ids: readonly number[]): FieldProblem | undefined {
  const most = config.support.attachments.perMessage;
  return ids.length > most ? { field: 'attachments', message: `attachments must name at most ${most} files` } : undefined;
}

export function checkTicket(config: Config, input: TicketInput): Managed<CheckedTicket> {
  const { products, priorities, defaultPriority } = config.support;
  const problems = [textProblem('title', input.title, TITLE_MAX), textProblem('content', input.content, CONTENT_MAX), attachmentProblem(config, input.attachmentIds)];
  if (input.product !== undefined && !products.some((p) => p.id === input.product)) {
    problems.push({ field: 'product_id', message: `product_id must be one of: ${products.map((p) => p.id).join(', ') || '(none configured)'}` });
  }
  if (input.priority !== undefined && !priorities.some((p) => p.id === input.priority)) {
    problems.push({ field: 'client_priority', message: `client_priority must be one of: ${priorities.map((p) => p.id).join(', ')}` });
  }
  const [first, ...more] = problems.filter((p): p is FieldProblem => p !== undefined);
  if (first) return invalidFields([first, ...more]);
  const priority = input.priority ?? defaultPriority;
  return done({ title: input.title.trim(), content: input.content, product: input.product ?? null, priority, attachmentIds: input.attachmentIds });
}

export function checkResponse(config: Config, content: string, attachmentIds: readonly number[]): Managed<void> {
  const [first, ...more] = [textProblem('content', content, CONTENT_MAX), attachmentProblem(config, attachmentIds)].filter((p): p is FieldProblem => p !== undefined);
  return first ? invalidFields([first, ...more]) : done(undefined);
}
