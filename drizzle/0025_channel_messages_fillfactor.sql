-- A tenth of each new page of channel_messages is left free, so the update of a stored message that
-- changes no indexed column (a reaction, a reply's count and time on its parent) stays on its page as
-- a heap-only tuple: no new entry in the five indexes (the GIN one takes every word of the text).
-- Pages written before keep their fill; no rewrite.
ALTER TABLE "channel_messages" SET (fillfactor = 90);
