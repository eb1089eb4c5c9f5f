package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	_ "modernc.org/sqlite" // database/sql driver "sqlite", with FTS5
)

// A store holds the peer's chunks in SQLite FTS5, with docs-mcp-server's
// table (content, title, url, path; tokenizer 'porter unicode61') and
// ranking (bm25 with column weights 10, 1, 5, 1).
type store struct {
	db            *sql.DB
	apis          []string // apis[rowid-1] is the API of chunk rowid
	pages, chunks int
}

const schema = `
CREATE VIRTUAL TABLE documents_fts USING fts5(content, title, url, path, tokenize='porter unicode61');
CREATE TABLE documents(id INTEGER PRIMARY KEY, api TEXT NOT NULL, library TEXT NOT NULL);
`

// openStore builds an in-memory store of pages.
func openStore(ctx context.Context, pages []page) (*store, error) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, err
	}
	// One connection: an in-memory database is per connection.
	db.SetMaxOpenConns(1)
	s := &store{db: db}
	if err := s.load(ctx, pages); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

func (s *store) load(ctx context.Context, pages []page) error {
	if _, err := s.db.ExecContext(ctx, schema); err != nil {
		return fmt.Errorf("create tables: %w", err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	fts, err := tx.PrepareContext(ctx, `INSERT INTO documents_fts(rowid, content, title, url, path) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	doc, err := tx.PrepareContext(ctx, `INSERT INTO documents(id, api, library) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	for _, p := range pages {
		for _, c := range splitPage(p.markdown) {
			id := len(s.apis) + 1
			// json_extract(metadata, '$.path') of a JSON array is its JSON text.
			path, err := json.Marshal(c.path)
			if err != nil {
				return err
			}
			if c.path == nil {
				path = []byte("[]")
			}
			if _, err := fts.ExecContext(ctx, id, c.content, p.title, p.url, string(path)); err != nil {
				return fmt.Errorf("insert chunk of %s: %w", p.api, err)
			}
			if _, err := doc.ExecContext(ctx, id, p.api, p.library); err != nil {
				return fmt.Errorf("insert chunk of %s: %w", p.api, err)
			}
			s.apis = append(s.apis, p.api)
		}
		s.pages++
	}
	s.chunks = len(s.apis)
	return tx.Commit()
}

func (s *store) Close() error { return s.db.Close() }

// ftsQuery is docs-mcp-server's escapeFtsQuery for a query without double
// quotes: the whole query as one phrase, OR each whitespace-separated term
// as a phrase; a single term is only the phrase. Double quotes inside are
// doubled (the peer passes a query that holds one through as FTS syntax,
// which fails on most code; escaping keeps such queries answerable).
func ftsQuery(q string) string {
	quote := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	terms := strings.Fields(q)
	if len(terms) <= 1 {
		return quote(strings.TrimSpace(q))
	}
	parts := make([]string, len(terms))
	for i, t := range terms {
		parts[i] = quote(t)
	}
	return quote(q) + " OR (" + strings.Join(parts, " OR ") + ")"
}

// search returns the APIs of the best chunks for q, best first, each API
// once at the rank of its first chunk, at most k of them; library, when
// not "", keeps the chunks of that library (the peer's search is always
// scoped to one library). Chunks tie-break by rowid.
func (s *store) search(ctx context.Context, q, library string, k int) ([]string, error) {
	query := `SELECT f.rowid FROM documents_fts f JOIN documents d ON d.id = f.rowid
		WHERE documents_fts MATCH ?1 AND (?2 = '' OR d.library = ?2)
		ORDER BY bm25(documents_fts, 10.0, 1.0, 5.0, 1.0), f.rowid LIMIT ?3`
	rows, err := s.db.QueryContext(ctx, query, ftsQuery(q), library, s.chunks)
	if err != nil {
		return nil, fmt.Errorf("fts5 search: %w", err)
	}
	defer rows.Close()
	var out []string
	seen := map[string]bool{}
	for rows.Next() && len(out) < k {
		var id int
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		if api := s.apis[id-1]; !seen[api] {
			seen[api] = true
			out = append(out, api)
		}
	}
	return out, rows.Err()
}
