package realagent

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// geminiRequest is the part of a Gemini generateContent request the server
// reads.
type geminiRequest struct {
	Contents []struct {
		Role  string `json:"role"`
		Parts []struct {
			Text string `json:"text"`
		} `json:"parts"`
	} `json:"contents"`
	GenerationConfig struct {
		ResponseMimeType   string          `json:"responseMimeType"`
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
	} `json:"generationConfig"`
}

// routerAnswer is what the Gemini model router is told: a simple task.
const routerAnswer = `{"complexity_reasoning":"a scripted test turn","complexity_score":1}`

func (s *Server) gemini(w http.ResponseWriter, r *http.Request, stream bool) {
	body, err := readBody(r)
	if err != nil {
		s.fail(w, http.StatusBadRequest, "%v", err)
		return
	}
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.fail(w, http.StatusBadRequest, "gemini request: %v", err)
		return
	}
	if !stream {
		// JSON mode: the model router (complexity_score) is the one call
		// of this kind Gemini CLI 0.61 makes in these scenarios.
		schema := string(req.GenerationConfig.ResponseJSONSchema) + string(req.GenerationConfig.ResponseSchema)
		if !strings.Contains(schema, "complexity_score") {
			s.fail(w, http.StatusBadRequest, "generateContent call that is not the model router: %.300s", body)
			return
		}
		s.record(Request{Kind: KindGeminiRouter})
		writeJSON(w, geminiResponse([]map[string]any{{"text": routerAnswer}}, Usage{Input: 1, Output: 1}))
		return
	}
	texts := make([]string, len(req.Contents))
	model := make([]bool, len(req.Contents))
	for i, c := range req.Contents {
		model[i] = c.Role == "model"
		if !model[i] {
			var b strings.Builder
			for _, p := range c.Parts {
				b.WriteString(p.Text)
			}
			texts[i] = b.String()
		}
	}
	st, name, step, ok := s.next(w, KindGeminiStream, texts, model, nil, nil, body)
	if !ok {
		return
	}
	s.record(Request{Kind: KindGeminiStream, Script: name, Step: step, Usage: st.Usage, Markers: markers(texts, model), Body: keptBody(body)})
	var parts []map[string]any
	if st.Text != "" {
		parts = append(parts, map[string]any{"text": st.Text})
	}
	for _, tc := range st.Tools {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"name": tc.Name, "args": tc.Input}})
	}
	b, _ := json.Marshal(geminiResponse(parts, st.Usage))
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "data: %s\n\n", b)
}

// geminiResponse is one GenerateContentResponse with the given parts.
func geminiResponse(parts []map[string]any, u Usage) map[string]any {
	usage := map[string]any{
		"promptTokenCount":     u.Input,
		"candidatesTokenCount": u.Output,
		"totalTokenCount":      u.Input + u.Output,
	}
	if u.CacheRead > 0 {
		usage["cachedContentTokenCount"] = u.CacheRead
	}
	return map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": parts},
			"finishReason": "STOP",
			"index":        0,
		}},
		"usageMetadata": usage,
	}
}
