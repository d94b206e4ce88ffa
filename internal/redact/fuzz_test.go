package redact

import (
	"bytes"
	"encoding/json"
	"testing"
)

func fuzzSeeds(f *testing.F) {
	f.Add([]byte(`{"type":"user","message":{"role":"user","content":"hi"}}`))
	f.Add([]byte(`{"a":"caf\u00e9 \ud83d\ude00 \ud800 \"q\" \\ \/ \b\f\n\r\t"}`))
	f.Add([]byte(`{"password": "` + token(20, alnum, 20) + `", "x": [1, -2.5e3, true, false, null]}`))
	f.Add([]byte(`{"type":"image","source":{"type":"base64","data":"` + token(21, b64, 64) + `"}}`))
	f.Add([]byte(`{"a":"x"}{"b":"y"}`))
	f.Add([]byte(`{"k":"-----BEGIN RSA PRIVATE KEY-----\n` + token(22, b64, 80) + `\n-----END RSA PRIVATE KEY-----"}`))
	f.Add([]byte(`not json at all ghp_` + token(23, alnum, 36)))
	for n, p := range plantedSecrets(9)[:6] {
		f.Add(plantClaude(p, n)["escaped-json"])
	}
}

func FuzzJSONLine(f *testing.F) {
	fuzzSeeds(f)
	r, err := New(Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		in := bytes.Clone(line)
		out := r.JSONLine(line)
		if !bytes.Equal(in, line) {
			t.Fatal("JSONLine modified its input")
		}
		if json.Valid(line) && !json.Valid(out) {
			t.Fatalf("valid JSON in, invalid out:\n in %q\nout %q", line, out)
		}
		if !bytes.Equal(r.JSONLine(line), out) {
			t.Fatal("JSONLine is not deterministic")
		}
		for _, fd := range r.ScanJSON(line) {
			if fd.Start < 0 || fd.End > len(line) || fd.Start >= fd.End {
				t.Fatalf("bad finding span %v for %d bytes", fd, len(line))
			}
		}
	})
}

func FuzzText(f *testing.F) {
	fuzzSeeds(f)
	r, err := New(Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s := string(b)
		out := r.Text(s)
		if r.Text(s) != out {
			t.Fatal("Text is not deterministic")
		}
		for _, fd := range r.Scan(s) {
			if fd.Start < 0 || fd.End > len(s) || fd.Start >= fd.End {
				t.Fatalf("bad finding span %v for %d bytes", fd, len(s))
			}
		}
	})
}
