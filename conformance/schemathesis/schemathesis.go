// Package schemathesis runs schemathesis, a property-based API tester
// nobody here wrote, against the running example service, with every one
// of its checks: it generates valid and invalid requests from the service's
// OpenAPI document (examples, boundary cases, random data, and stateful
// sequences following the links it infers) and checks that the service
// accepts what the document allows, refuses what it does not, and answers
// only as the document says. The run is bounded in time and must end with
// no failure.
//
// schemathesis is pinned in scripts/requirements.txt and installed by
// scripts/setup into .tools/venv.
package schemathesis
