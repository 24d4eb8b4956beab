import { describe, expect, it } from 'vitest';
import { createTokenEstimator } from '../../src/shared/tokens.js';
import {
  callerToolCandidate,
  deferralNote,
  deferTools,
  searchTools,
  toolTokens,
  type DeferralCandidate,
} from '../../src/modules/tools/core/tool-deferral.js';
import {
  BUILTIN_TOOLS,
  builtinToolNames,
  builtinToolsFor,
  TOOL_NAME_PATTERN,
} from '../../src/modules/tools/tools.schemas.js';

const estimator = createTokenEstimator();
const nameOf = (tool: object) => ('name' in tool ? tool.name : undefined);

const tool = (name: string, source: DeferralCandidate['source'], lastUsedSeq?: number, words = 40) => ({
  tool: {
    name,
    description: `${name} ${'does a useful thing '.repeat(words)}`,
    input_schema: { type: 'object' as const, properties: { q: { type: 'string' } } },
  },
  source,
  lastUsedSeq,
});

describe('built-in tool definitions', () => {
  it('have API-valid names and object input schemas', () => {
    for (const name of builtinToolNames) {
      const def = BUILTIN_TOOLS[name];
      expect(def.name).toBe(name);
      expect(TOOL_NAME_PATTERN.test(def.name)).toBe(true);
      expect(def.input_schema.type).toBe('object');
      expect(def.description?.length).toBeGreaterThan(20);
      // The channel and lane come from the session, never from the input.
      expect(Object.keys(def.input_schema.properties ?? {})).not.toContain('channel_id');
    }
  });

  it('channel tools only when the session has a channel', () => {
    expect(builtinToolsFor({ hasChannel: true }).map((t) => t.name)).toEqual([...builtinToolNames]);
    expect(builtinToolsFor({ hasChannel: false }).map((t) => t.name)).toEqual([
      'read_result',
      'memory_search',
      'tool_search',
      'compact_context',
    ]);
    expect(
      builtinToolsFor({ hasChannel: false, readResult: false, toolSearch: false }).map((t) => t.name),
    ).toEqual(['memory_search', 'compact_context']);
  });
});

describe('deferTools', () => {
  const tools = [
    tool('builtin_a', 'builtin'),
    tool('skill_old', 'skill', 3),
    tool('mcp_recent', 'mcp', 50),
    tool('mcp_never', 'mcp'),
    tool('mcp_old', 'mcp', 10),
    tool('skill_recent', 'skill', 90),
  ];
  const size = toolTokens(tools[0]!.tool, estimator);

  it('defers nothing under the share', () => {
    const r = deferTools({ tools, effectiveWindow: size * 100, share: 0.1, estimator });
    expect(r.deferred).toEqual([]);
    expect(r.note).toBeNull();
    expect(r.active.map(nameOf)).toEqual(tools.map((t) => t.tool.name));
  });

  it('defers MCP first, least recently used first, then skills; built-ins never; order kept', () => {
    // Room for about three tools.
    const r = deferTools({ tools, effectiveWindow: Math.ceil((size * 3.5) / 0.1), share: 0.1, estimator });
    // Reported in payload order.
    expect(r.deferred.map((t) => t.name)).toEqual(['mcp_recent', 'mcp_never', 'mcp_old']);
    expect(r.active.map(nameOf)).toEqual(['builtin_a', 'skill_old', 'skill_recent']);
    expect(r.note).toBe('[3 tools deferred to save context. Use tool_search to find them.]');
    const tighter = deferTools({
      tools,
      effectiveWindow: Math.ceil((size * 1.5) / 0.1),
      share: 0.1,
      estimator,
    });
    expect(tighter.deferred.map((t) => t.name).sort()).toEqual(
      ['mcp_never', 'mcp_old', 'mcp_recent', 'skill_old', 'skill_recent'].sort(),
    );
    expect(tighter.active.map(nameOf)).toEqual(['builtin_a']);
    // Room for the built-in and one skill: the least recently used skill goes.
    const oneSkill = deferTools({
      tools,
      effectiveWindow: Math.ceil((size * 2.5) / 0.1),
      share: 0.1,
      estimator,
    });
    expect(oneSkill.active.map(nameOf)).toEqual(['builtin_a', 'skill_recent']);
  });

  it('never-used tools go before used ones and promoted tools stay', () => {
    const r = deferTools({
      tools,
      effectiveWindow: Math.ceil((size * 5.5) / 0.1),
      share: 0.1,
      estimator,
      promoted: new Set(['mcp_never']),
    });
    expect(r.deferred.map((t) => t.name)).toEqual(['mcp_old']);
    const unpromoted = deferTools({
      tools,
      effectiveWindow: Math.ceil((size * 5.5) / 0.1),
      share: 0.1,
      estimator,
    });
    expect(unpromoted.deferred.map((t) => t.name)).toEqual(['mcp_never']);
  });

  it('only built-ins: nothing deferred even when over', () => {
    const r = deferTools({ tools: [tools[0]!], effectiveWindow: 10, share: 0.1, estimator });
    expect(r.deferred).toEqual([]);
    expect(r.activeTokens).toBe(size);
  });

  it('note wording for one tool', () => {
    expect(deferralNote(1)).toBe('[1 tool deferred to save context. Use tool_search to find them.]');
  });
});

describe('searchTools', () => {
  const list = [
    { name: 'github_create_issue', description: 'Create an issue in a GitHub repository' },
    { name: 'jira_search', description: 'Search Jira issues by JQL' },
    { name: 'xcode_build', description: 'Build an Xcode project' },
  ];
  it('ranks name hits over description hits and caps results', () => {
    expect(searchTools(list, 'issue', 5).map((t) => t.name)).toEqual(['github_create_issue', 'jira_search']);
    expect(searchTools(list, 'xcode build', 5).map((t) => t.name)).toEqual(['xcode_build']);
    expect(searchTools(list, 'issue', 1)).toHaveLength(1);
    expect(searchTools(list, '?!', 5)).toEqual([]);
  });
});

describe('callerToolCandidate', () => {
  const inputSchema = { type: 'object' as const };

  it('sends the tool as given without source; no source means never deferred', () => {
    const given = { name: 'x', input_schema: inputSchema, cache_control: { type: 'ephemeral' as const } };
    expect(callerToolCandidate(given, { x: 7 })).toEqual({ tool: given, source: 'builtin', lastUsedSeq: 7 });
    expect(callerToolCandidate({ ...given, source: 'mcp' }, {})).toEqual({
      tool: given,
      source: 'mcp',
      lastUsedSeq: undefined,
    });
  });

  it('server tools are never deferred, whatever their source', () => {
    const server = { type: 'web_search_20250305', name: 'web_search', max_uses: 5 };
    expect(callerToolCandidate({ ...server, source: 'mcp' }, {})).toEqual({
      tool: server,
      source: 'builtin',
      lastUsedSeq: undefined,
    });
    const r = deferTools({
      tools: [callerToolCandidate(server, {}), tool('mcp_a', 'mcp')],
      effectiveWindow: 10,
      share: 0.1,
      estimator,
    });
    expect(r.deferred.map((t) => t.name)).toEqual(['mcp_a']);
    expect(r.active).toEqual([server]);
  });
});
