package renderrefs_test

import (
	"fmt"
	"os"

	"github.com/entirecli/entire/renderrefs"
)

func ExampleWrite() {
	// A command that injects its environment checks Enabled itself.
	getenv := func(key string) string {
		if key == renderrefs.EnvVar {
			return "1"
		}
		return ""
	}
	if renderrefs.Enabled(getenv) {
		_ = renderrefs.Write(os.Stdout, renderrefs.Reference{
			Type:    "checkpoint",
			ID:      "a3f9c2d1e4b5",
			Intent:  renderrefs.IntentCreated,
			Preview: &renderrefs.Preview{Title: "Add login form"},
		})
	}
	// Output:
	// ::entire-ref/v1::{"v":1,"type":"checkpoint","id":"a3f9c2d1e4b5","intent":"created","preview":{"title":"Add login form"}}
}

func ExampleEmit() {
	// Emit consults the process environment; without ENTIRE_RENDERABLE_REFS=1
	// it writes nothing, so humans never see the marker.
	os.Unsetenv(renderrefs.EnvVar)
	_ = renderrefs.Emit(os.Stdout, renderrefs.Reference{Type: "checkpoint", ID: "a3f9c2d1e4b5"})
	fmt.Println("nothing emitted")
	// Output:
	// nothing emitted
}

func ExampleExtract() {
	output := "checkpoint saved\n" +
		`::entire-ref/v1::{"v":1,"type":"checkpoint","id":"a3f9c2d1e4b5","intent":"created"}` + "\n" +
		`::entire-ref/v1::{"v":1,"type":"checkpoint"` + "\n" + // truncated: dropped
		"done\n"
	clean, refs := renderrefs.Extract(output)
	fmt.Printf("%q\n", clean)
	for _, r := range refs {
		fmt.Println(r.Type, r.ID, r.Intent)
	}
	// Output:
	// "checkpoint saved\ndone\n"
	// checkpoint a3f9c2d1e4b5 created
}
