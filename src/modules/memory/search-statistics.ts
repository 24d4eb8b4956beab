// What memory search holds between searches besides documents (scope-cache.ts): a large scope's
// statistics, the table's common-lexeme shares and query words' lexemes — each read once and kept
// for a while, so a search of a large scope or of known words sends fewer statements.
import type { Clock } from '../../shared/clock.js';
import type { SearchRepository, SearchSource } from './search.repository.js';

/** A scope found larger than SCOPE_SCAN_MAX (memory-search.service.ts) goes straight to the rare-lexeme path, with its statistics cached, for this long. */
const LARGE_SCOPE_TTL_MS = 60_000;
const LARGE_SCOPES_MAX = 10_000;
/** Query words whose lexemes are held (a few MB at most); when full, the held ones are dropped. */
const WORD_LEXEMES_MAX = 50_000;

type ScopeStats = { documents: number; averageLength: number };

export function createSearchStatistics(deps: { search: SearchRepository; clock: Clock }) {
  const { search, clock } = deps;
  /**
   * Scopes recently found too large for a scope read, with their statistics (a document count
   * capped at STATS_CAP and an average length): for LARGE_SCOPE_TTL_MS they skip the read and
   * the count.
   */
  const largeScopes = new Map<string, { at: number; stats: ScopeStats }>();

  /**
   * The statistics of a large scope, counted once however many calls miss the cache together
   * (single flight: the count reads up to STATS_CAP rows, ~145 ms, and every concurrent call used
   * to run its own), then cached for LARGE_SCOPE_TTL_MS. The cache is read again here: a call that
   * checked it before its scope read may arrive after another call's count has landed.
   */
  const statsInFlight = new Map<string, Promise<ScopeStats>>();
  function largeScopeStats(scopeKey: string, params: Parameters<SearchRepository['corpusStats']>[0]) {
    const cached = largeScopes.get(scopeKey);
    if (cached && clock.now().getTime() - cached.at < LARGE_SCOPE_TTL_MS)
      return Promise.resolve(cached.stats);
    let pending = statsInFlight.get(scopeKey);
    if (!pending) {
      pending = search.corpusStats(params).then((stats) => {
        if (largeScopes.size >= LARGE_SCOPES_MAX) largeScopes.clear();
        largeScopes.set(scopeKey, { at: clock.now().getTime(), stats });
        return stats;
      });
      const settled = () => statsInFlight.delete(scopeKey);
      pending.then(settled, settled);
      statsInFlight.set(scopeKey, pending);
    }
    return pending;
  }

  /**
   * The lexemes of query words seen before, per word (SearchRepository.wordLexemes): a query whose
   * words are all held costs no statement; the others read only their new words. Words recur
   * across queries (a vocabulary is Zipf-distributed), and `lexemesOf(words.join(' '))` is the held
   * lists joined in order without repeats.
   */
  const wordLexemes = new Map<string, readonly string[]>();
  async function lexemesOfWords(words: readonly string[]): Promise<string[]> {
    const missing = [...new Set(words.filter((w) => !wordLexemes.has(w)))];
    if (missing.length > 0) {
      const read = await search.wordLexemes(missing);
      if (wordLexemes.size + missing.length > WORD_LEXEMES_MAX) wordLexemes.clear();
      missing.forEach((word, i) => wordLexemes.set(word, read[i] ?? []));
    }
    const out = new Set<string>();
    for (const word of words) for (const lexeme of wordLexemes.get(word) ?? []) out.add(lexeme);
    return [...out];
  }

  /** Per source: the table's common-lexeme shares (SearchRepository.lexemeShares), for LARGE_SCOPE_TTL_MS. */
  const shareCache = new Map<SearchSource, { at: number; shares: Promise<Map<string, number>> }>();
  function tableShares(source: SearchSource): Promise<Map<string, number>> {
    const now = clock.now().getTime();
    const cached = shareCache.get(source);
    if (cached && now - cached.at < LARGE_SCOPE_TTL_MS) return cached.shares;
    const shares = search.lexemeShares({ source });
    shareCache.set(source, { at: now, shares });
    shares.catch(() => shareCache.delete(source));
    return shares;
  }

  return {
    /** A scope found large within LARGE_SCOPE_TTL_MS, with its statistics; null: read it. */
    freshLargeScope(scopeKey: string): { stats: ScopeStats } | null {
      const cached = largeScopes.get(scopeKey);
      return cached !== undefined && clock.now().getTime() - cached.at < LARGE_SCOPE_TTL_MS ? cached : null;
    },
    /** The scope was small enough to read: it is not large anymore. */
    forgetLargeScope(scopeKey: string): void {
      largeScopes.delete(scopeKey);
    },
    largeScopeStats,
    lexemesOfWords,
    tableShares,
  };
}
