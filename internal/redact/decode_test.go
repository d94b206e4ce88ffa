package redact

import (
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
)

// Decoding gitleaks' configuration with go-toml gives exactly what viper
// gives (the way gitleaks itself reads it).
func TestDecodeGitleaksConfigMatchesViper(t *testing.T) {
	t.Parallel()
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(config.DefaultConfig)); err != nil {
		t.Fatal(err)
	}
	var want config.ViperConfig
	if err := v.Unmarshal(&want); err != nil {
		t.Fatal(err)
	}
	got, err := decodeGitleaksConfig(config.DefaultConfig)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Rules) < 100 || !reflect.DeepEqual(got, want) {
		t.Fatalf("go-toml decoding differs from viper's (%d vs %d rules)", len(got.Rules), len(want.Rules))
	}
}
