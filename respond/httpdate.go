package respond

import (
	"net/http"
	"sync/atomic"
	"time"
)

// httpDate formats times as HTTP dates (RFC 9110 section 5.6.7, the form
// of http.TimeFormat), remembering the last second it formatted: a
// resource's Last-Modified is most often the same from one request to the
// next, and is then sent without formatting or allocating again. It is
// safe for concurrent use.
type httpDate struct {
	last atomic.Pointer[formattedDate]
}

type formattedDate struct {
	unix int64
	text string
}

// format returns t, in UTC and to the second, as an HTTP date.
func (d *httpDate) format(t time.Time) string {
	u := t.Unix()
	if f := d.last.Load(); f != nil && f.unix == u {
		return f.text
	}
	s := string(appendHTTPDate(make([]byte, 0, len(http.TimeFormat)), t))
	d.last.Store(&formattedDate{unix: u, text: s})
	return s
}

// appendHTTPDate appends t, in UTC, as http.TimeFormat writes it:
// "Mon, 02 Jan 2006 15:04:05 GMT".
func appendHTTPDate(b []byte, t time.Time) []byte {
	t = t.UTC()
	y, mo, day := t.Date()
	if y < 0 || y > 9999 {
		return t.AppendFormat(b, http.TimeFormat)
	}
	h, mi, s := t.Clock()
	const days = "SunMonTueWedThuFriSat"
	const months = "JanFebMarAprMayJunJulAugSepOctNovDec"
	wd := int(t.Weekday()) * 3
	m := (int(mo) - 1) * 3
	return append(b,
		days[wd], days[wd+1], days[wd+2], ',', ' ',
		byte('0'+day/10), byte('0'+day%10), ' ',
		months[m], months[m+1], months[m+2], ' ',
		byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), ' ',
		byte('0'+h/10), byte('0'+h%10), ':', byte('0'+mi/10), byte('0'+mi%10), ':', byte('0'+s/10), byte('0'+s%10),
		' ', 'G', 'M', 'T')
}
