// Package guide holds the code of the user's guide (docs/guide): every Go
// sample of a guide page is taken from a file of this package, whose tests
// compile and run it, and internal/guidesample checks that each sample is
// still written in its file as the page shows it. The package exports
// nothing; read the pages.
package guide
