package openapi

// The legacy forms (legacy_test.go), for the tests of package openapi_test.
var (
	LegacyTranslate30 = legacyTranslate30
	LegacyJSONToYAML  = legacyJSONToYAML
)
