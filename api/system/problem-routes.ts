import { defineRoute, type RouteSpec } from '../http/route-table';
import { problems } from '../http/problems';
import { PROBLEM_CATALOGUE, type ProblemEntry } from '../http/problem-catalogue';
import { ProblemList, ProblemParams, ProblemView } from './schemas';

export const problemView = (name: string, entry: ProblemEntry) => {
  const status = Array.isArray(entry.status) ? entry.status : [entry.status];
  return {
    type: `/problems/${name}`,
    title: entry.title,
    status,
    meaning: entry.meaning,
    when: entry.when,
    action: entry.action,
    exampleAnswer: { type: `/problems/${name}`, title: entry.title, status: status[0]!, detail: entry.example },
  };
};

/**
 * The problem catalogue: every `type` an error answer carries (`/problems/<name>`) resolves here, relative to the API's
 * origin, to what it means, when it happens and what to do.
 */
export function problemRoutes(): RouteSpec[] {
  const tags = ['Problems'];
  return [
    defineRoute({
      method: 'get',
      path: '/problems',
      credentials: false,
      operationId: 'listProblemTypes',
      tags,
      auth: 'none',
      summary: 'The problem catalogue: every problem type the service answers, what it means and what to do',
      description:
        'Every error answer names its problem type (`type: "/problems/<name>"`, RFC 9457); this lists them all, ' +
        'alphabetically, each with its title, status, meaning, when it happens, what the client should do and an ' +
        'example. The reference page (GET /docs) shows the same catalogue. No credential.',
      responses: { 200: { description: 'The catalogue', schema: ProblemList } },
      handler: async () => ({
        status: 200,
        body: {
          items: Object.keys(PROBLEM_CATALOGUE)
            .sort()
            .map((name) => problemView(name, PROBLEM_CATALOGUE[name]!)),
        },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/problems/:name',
      credentials: false,
      operationId: 'getProblemType',
      tags,
      auth: 'none',
      summary: "One problem type: where an error answer's `type` leads",
      description:
        "An error answer's `type` (`/problems/rate-limited`, say), resolved against the API's origin, leads here: " +
        'what it means, when it happens, what to do, and an example. 404 for a name the service never answers.',
      params: ProblemParams,
      responses: {
        200: { description: 'The problem type', schema: ProblemView },
        404: { description: 'No such problem type (not-found)' },
      },
      handler: async ({ params }) => {
        const entry = Object.hasOwn(PROBLEM_CATALOGUE, params.name) ? PROBLEM_CATALOGUE[params.name] : undefined;
        if (!entry) throw problems.notFound(`Problem type ${params.name}`);
        return { status: 200, body: problemView(params.name, entry) };
      },
    }),
  ];
}
