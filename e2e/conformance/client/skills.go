package main

import (
	"context"
	"errors"
	"log"

	"github.com/mcp-host/mcp-host/runtime/session"
	"github.com/mcp-host/mcp-host/runtime/skills"
)

func init() {
	scenarios["sep-2640-client-no-prefetch"] = listSkills
	for _, name := range []string{"sep-2640-client-verify-digest", "sep-2640-client-verify-size", "sep-2640-client-verify-frontmatter"} {
		scenarios[name] = useSkills
	}
}

// listSkills lists the skills, as the host does when it builds a run's
// catalog: nothing of a skill is read.
func listSkills(ctx context.Context, s *session.Session, _ map[string]any) error {
	entries, problems, err := skills.List(ctx, s)
	log.Printf("skills/list: %d skills, problems %v", len(entries), problems)
	return err
}

// useSkills loads every listed skill, as a model using it would, and reads
// its supporting files only when the skill passed verification.
func useSkills(ctx context.Context, s *session.Session, _ map[string]any) error {
	entries, _, err := skills.List(ctx, s)
	if err != nil {
		return err
	}
	for _, e := range entries {
		sk, err := skills.Load(ctx, s, e)
		if errors.Is(err, skills.ErrVerification) {
			log.Printf("refused skill %s: %v", e.URI, err)
			continue
		}
		if err != nil {
			return err
		}
		for _, f := range sk.Files() {
			if _, err := sk.Read(ctx, f.URI); err != nil {
				log.Printf("refused file %s: %v", f.URI, err)
			}
		}
	}
	return nil
}
