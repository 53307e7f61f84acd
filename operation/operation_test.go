package operation

import "testing"

func TestDefaultID(t *testing.T) {
	cases := map[[2]string]string{
		{"GET", "/items/{id}"}:                 "get-items-by-id",
		{"POST", "/v1/users/{user}/keys"}:      "post-v1-users-by-user-keys",
		{"GET", "/"}:                           "get",
		{"DELETE", "/files/{path...}"}:         "delete-files-by-path",
		{"PATCH", "/a.b/c_d/{X-Id}"}:           "patch-a-b-c-d-by-x-id",
		{"GET", "/Users/{userID}/Repos"}:       "get-users-by-userid-repos",
		{"PUT", "/orgs/{org}/members/{user}/"}: "put-orgs-by-org-members-by-user",
	}
	for in, want := range cases {
		if got := DefaultID(in[0], in[1]); got != want {
			t.Errorf("DefaultID(%s, %s) = %q, want %q", in[0], in[1], got, want)
		}
	}
}

func TestDefaultStatusAndLookups(t *testing.T) {
	if DefaultStatus("POST", true) != 201 || DefaultStatus("POST", false) != 200 || DefaultStatus("GET", true) != 200 {
		t.Error("DefaultStatus")
	}
	d := &Description{
		Parameters: []Parameter{{Name: "id", In: InPath}, {Name: "id", In: InQuery}},
		Responses:  []Response{{Status: 200}, {Status: 404}},
	}
	if p := d.Param(InQuery, "id"); p != &d.Parameters[1] {
		t.Error("Param")
	}
	if d.Param(InHeader, "id") != nil || d.Response(500) != nil || d.Response(404) != &d.Responses[1] {
		t.Error("lookups")
	}
}
