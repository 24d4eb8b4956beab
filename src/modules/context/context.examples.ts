// Examples of the context call for the OpenAPI document: a bot's turn in a Slack thread and the
// reply it gets. A unit test parses both with their schemas, so they cannot drift from them.

export const contextRequestExample = {
  message: {
    content: 'Can we ship the release on Friday?',
    source: { platform: 'slack', channel_id: 'C024BE91L', message_id: '1700000123.000200' },
    author: { id: 'U061F7AUR', name: 'maria' },
  },
  model: 'claude-sonnet-5-5',
  budget: { total: 200_000, max_output_tokens: 8192 },
  system: [{ name: 'policy', text: 'You are the release bot of the platform team.', cacheable: true }],
  compaction: 'auto',
};

const lane = 'thread:C024BE91L:1700000000.000100';

export const contextReplyExample = {
  payload: {
    model: 'claude-sonnet-5-5',
    max_tokens: 8192,
    system: [
      {
        type: 'text',
        text: 'You are the release bot of the platform team.',
        cache_control: { type: 'ephemeral' },
      },
    ],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Is the CI green on main?' },
          { type: 'text', text: '<turn_context>…thread so far…</turn_context>' },
        ],
      },
      {
        role: 'assistant',
        content: [{ type: 'text', text: 'Yes: build 4812 passed at 14:02.' }],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Can we ship the release on Friday?', cache_control: { type: 'ephemeral' } },
        ],
      },
    ],
    tools: [
      {
        name: 'compact_context',
        description: 'Summarize older parts of this conversation to free room.',
        input_schema: { type: 'object', properties: {} },
      },
    ],
  },
  format: 'anthropic',
  budget: {
    total: 200_000,
    max_output_tokens: 8192,
    effective_window: 191_808,
    max_context_tokens: null,
    components: {
      system: 14,
      tools: 120,
      channel_context: 96,
      summary: 0,
      memories: 0,
      conversation: 31,
      current_turn: 12,
    },
    used: 273,
    added: 127,
    used_with_margin: 300,
    remaining: 191_508,
    percentage: 0.16,
    state: 'ok',
    safety_margin: 1.1,
    calibration: { factor: 1, ratio: null, calls: 0 },
    unused: { tokens: 170_522, reason: 'no_more_candidates' },
  },
  compaction: { mode: 'auto', available: true, action: 'none', job_id: null, result: null },
  context: {
    channel: { platform: 'slack', channel_id: 'C024BE91L' },
    snapshot: 'none',
    thread: 'attached',
    quoted_reply: 'none',
    retrieved: [],
    lane: {
      lane_key: lane,
      version: 2,
      summary_version: 0,
      summary_included: false,
      first_kept_seq: 0,
      cleared_before_seq: 0,
      first_sent_seq: 1,
      dropped_entries: 0,
    },
    focus_anchor: null,
    pending_slot: null,
  },
  attachments: [],
  deferred_tools: [],
  notes: [],
  cache: {
    breakpoints: [
      { position: 'system', index: 0 },
      { position: 'this_turn', index: 2, block: 0 },
    ],
    stable_prefix_tokens: 165,
  },
  turn_seq: 3,
  payload_sha256: '5f2b0c1e8d7a4b3c9e6f1a2d3c4b5a69788796a5b4c3d2e1f0a9b8c7d6e5f4a3',
  dry_run: false,
};
