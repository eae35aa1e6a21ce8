// Which dashboard endpoint a method and a path (relative to /api) reach, as WordPress's
// match_request_to_handler: each route's `{name}` variables compiled to their patterns, matched whole and
// without regard to case; the first endpoint of the route taking the method wins (HEAD is served as GET).
// A known path asked with another method is no route, as WordPress answers it.
import { routePath, type AnyEndpoint, type DashboardRoute, type RestMethod } from './route.js';

export interface Match<U> {
  route: DashboardRoute<U>;
  endpoint: AnyEndpoint<U>;
  /** The path's variables, decoded. */
  params: Record<string, string>;
}

interface Compiled<U> {
  route: DashboardRoute<U>;
  pattern: RegExp;
  names: string[];
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function compile<U>(route: DashboardRoute<U>): Compiled<U> {
  const names: string[] = [];
  const source = routePath(route)
    .split(/(\{\w+\})/)
    .map((part) => {
      const variable = /^\{(\w+)\}$/.exec(part);
      if (!variable) return escape(part);
      const pattern = route.vars?.[variable[1]!];
      if (!pattern) throw new Error(`${routePath(route)}: no pattern for {${variable[1]!}}`);
      names.push(variable[1]!);
      return `(${pattern})`;
    })
    .join('');
  return { route, pattern: new RegExp(`^${source}$`, 'i'), names };
}

function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

export interface Router<U> {
  match(method: string, path: string): Match<U> | undefined;
}

export function createRouter<U>(routes: ReadonlyArray<DashboardRoute<U>>): Router<U> {
  const compiled = routes.map(compile);
  return {
    match(method, path) {
      const wanted = (method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase()) as RestMethod;
      for (const { route, pattern, names } of compiled) {
        const found = pattern.exec(path);
        if (!found) continue;
        const endpoint = route.endpoints.find((e) => e.methods.includes(wanted));
        if (!endpoint) continue;
        const params: Record<string, string> = {};
        for (const [i, name] of names.entries()) {
          const value = decoded(found[i + 1]!);
          if (value === undefined) return undefined;
          params[name] = value;
        }
        return { route, endpoint, params };
      }
      return undefined;
    },
  };
}
