// trp-counterpart is a TRP v3 (3.1.0) peer built only from TRISA's open-source library
// github.com/trisacrypto/trisa v1.1.1 (pkg/openvasp, pkg/ivms101, pkg/slip0044). The wallet
// service's CI runs it against our TypeScript TRP code: what this program accepts, sends and
// prints is what TRISA's Go implementation does, so a completed exchange proves wire-level
// interoperability. Every event is one JSON line on stdout.
//
//	trp-counterpart serve -listen 127.0.0.1:0 -cert leaf.pem -key leaf.key -ca ca.pem -decide approve|reject|async [-public URL]
//	trp-counterpart send -to URL|ta... -cert .. -key .. -ca .. -ivms payload.json -asset ETH|dti:X -amount 0.25
//	                     [-callback URL] [-txid T | -canceled R] [-listen 127.0.0.1:0 [-public URL]]
package main

import (
	"bytes"
	"cmp"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/trisacrypto/trisa/pkg/ivms101"
	"github.com/trisacrypto/trisa/pkg/openvasp"
	"github.com/trisacrypto/trisa/pkg/slip0044"
)

var outMu sync.Mutex

// emit prints one JSON object whose keys keep the given order: emit(k1, v1, k2, v2, ...).
func emit(kv ...any) {
	b := []byte{'{'}
	for i := 0; i+1 < len(kv); i += 2 {
		k, _ := json.Marshal(kv[i])
		v, err := json.Marshal(kv[i+1])
		if err != nil {
			v, _ = json.Marshal(err.Error())
		}
		b = append(append(append(b, k...), ':'), v...)
		b = append(b, ',')
	}
	b = append(b[:len(b)-1], "}\n"...)
	outMu.Lock()
	defer outMu.Unlock()
	os.Stdout.Write(b)
}

// report emits the event, then exits 1 if err is set; must reports a bare error.
func report(err error, kv ...any) {
	emit(kv...)
	if err != nil {
		os.Exit(1)
	}
}
func must(err error) {
	if err != nil {
		report(err, "event", "error", "error", err.Error())
	}
}

// null maps "" and nil errors to JSON null; list maps a nil slice to [].
func null(v any) any {
	if e, ok := v.(error); ok {
		v = e.Error()
	}
	if v == nil || v == "" {
		return nil
	}
	return v
}
func list(s []string) []string { return append([]string{}, s...) }

// mtlsConfig: one leaf is both server and client certificate; the CA is trusted for peers in
// both directions (RootCAs, ClientCAs) and the server requires a verified client certificate.
func mtlsConfig(certFile, keyFile, caFile string) (*tls.Config, error) {
	leaf, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	pem, err := os.ReadFile(caFile)
	pool := x509.NewCertPool()
	if err == nil && !pool.AppendCertsFromPEM(pem) {
		err = fmt.Errorf("no certificates in %s", caFile)
	}
	return &tls.Config{Certificates: []tls.Certificate{leaf}, RootCAs: pool, ClientCAs: pool,
		ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12}, err
}

// names collects names with the library's Names() helpers (a natural person's legal names,
// then local-script names, then phonetic names; a legal person's legalPersonName values).
func names(persons ...*ivms101.Person) []string {
	out := []string{}
	for _, p := range persons {
		if np := p.GetNaturalPerson(); np != nil {
			out = append(out, np.Names()...)
		} else if lp := p.GetLegalPerson(); lp != nil {
			out = append(out, lp.Names()...)
		}
	}
	return out
}

// validate runs ivms101's IVMS101 constraint checks. v1.1.1 has them only on NaturalPerson
// and LegalPerson (no Person- or payload-level Validate), so check every person in turn.
func validate(p *ivms101.IdentityPayload) error {
	if len(p.GetOriginator().GetOriginatorPersons()) == 0 || len(p.GetBeneficiary().GetBeneficiaryPersons()) == 0 {
		return errors.New("IVMS101 needs originator.originatorPersons and beneficiary.beneficiaryPersons")
	}
	persons := append(append([]*ivms101.Person{}, p.Originator.OriginatorPersons...), p.Beneficiary.BeneficiaryPersons...)
	persons = append(persons, p.GetOriginatingVasp().GetOriginatingVasp()) // required by IVMS101
	if v := p.GetBeneficiaryVasp().GetBeneficiaryVasp(); v != nil {
		persons = append(persons, v)
	}
	var errs []string
	for i, person := range persons { // i counts originator persons, beneficiary persons, then VASPs
		err := errors.New("originatingVASP or a person is neither naturalPerson nor legalPerson")
		if np := person.GetNaturalPerson(); np != nil {
			err = np.Validate()
		} else if lp := person.GetLegalPerson(); lp != nil {
			err = lp.Validate()
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("person %d %q: %v", i, names(person), err))
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// beneficiary is our openvasp.InquiryHandler and openvasp.ConfirmationHandler.
type beneficiary struct {
	decide, public string
	client         *openvasp.Client
}

// OnInquiry proves the library decoded the TS originator's inquiry (headers, asset, amount as a
// number, IVMS101 2020 keys); the library itself encodes our answer and replies 200.
func (b *beneficiary) OnInquiry(in *openvasp.Inquiry) (*openvasp.InquiryResolution, error) {
	p, asset := in.IVMS101, struct {
		SLIP044 any `json:"slip0044"`
		DTI     any `json:"dti"`
	}{}
	if in.Asset != nil {
		asset.DTI = null(in.Asset.DTI)
		if in.Asset.SLIP044 != 0 || in.Asset.DTI == "" { // BTC is coin 0: {"slip0044":"BTC"} and {} read the same
			asset.SLIP044 = in.Asset.SLIP044.Symbol()
		}
	}
	accounts := list(p.GetBeneficiary().GetAccountNumbers())
	emit("event", "inquiry", "requestIdentifier", in.TRP.RequestIdentifier, "apiVersion", in.TRP.APIVersion,
		"apiExtensions", list(in.TRP.APIExtensions), "asset", asset, "amount", in.Amount, "callback", in.Callback,
		"originatorNames", names(p.GetOriginator().GetOriginatorPersons()...),
		"originatorAccounts", list(p.GetOriginator().GetAccountNumbers()),
		"beneficiaryNames", names(p.GetBeneficiary().GetBeneficiaryPersons()...), "beneficiaryAccounts", accounts,
		"originatingVasp", names(p.GetOriginatingVasp().GetOriginatingVasp()),
		"beneficiaryVasp", names(p.GetBeneficiaryVasp().GetBeneficiaryVasp()), "validation", null(validate(p)))

	approval := &openvasp.Approval{Callback: b.public + "/confirm/" + url.PathEscape(in.TRP.RequestIdentifier)}
	if len(accounts) > 0 {
		approval.Address = accounts[0]
	}
	switch b.decide {
	case "reject":
		return &openvasp.InquiryResolution{Rejected: "beneficiary not known here"}, nil
	case "async": // the library answers {"version":"3.1.0"}; the decision goes to in.Callback later
		go func() {
			time.Sleep(300 * time.Millisecond)
			body, _ := json.Marshal(&openvasp.InquiryResolution{Approved: approval})
			rep, err := b.client.Post(&openvasp.TRPInfo{Address: in.Callback, RequestIdentifier: in.TRP.RequestIdentifier}, bytes.NewReader(body))
			status := cmp.Or(statusOf(err), null(err)) // non-2xx: the code of a library *StatusError
			if err == nil {
				rep.Body.Close()
				status = rep.StatusCode
			}
			emit("event", "resolution-sent", "status", status)
		}()
		return nil, nil
	}
	return &openvasp.InquiryResolution{Approved: approval}, nil
}

// OnConfirmation runs after the library checked headers and txid-xor-canceled; it replies 204.
// path is the library's TRPInfo.Address: the request path and query as received.
func (b *beneficiary) OnConfirmation(c *openvasp.Confirmation) error {
	emit("event", "confirmation", "requestIdentifier", c.TRP.RequestIdentifier, "path", c.TRP.Address,
		"txid", null(c.TXID), "canceled", null(c.Canceled))
	return nil
}

// checkResolution: exactly one of version / approved{address,callback} / rejected.
// (v1.1.1 has no Resolution.Validate; upstream trp/v3 checks the same.)
func checkResolution(r *openvasp.InquiryResolution) error {
	n := 0
	for _, set := range []bool{r.Version != "", r.Approved != nil, r.Rejected != ""} {
		if set {
			n++
		}
	}
	if n != 1 || (r.Approved != nil && (r.Approved.Address == "" || r.Approved.Callback == "")) {
		return errors.New("resolution must carry exactly one of version, approved{address,callback}, rejected")
	}
	return nil
}

type received struct {
	id  string
	res *openvasp.InquiryResolution
}

// resolveHandler takes async resolutions when we are the originator (v1.1.1 has no handler for
// them): the library's APIChecks (POST, api-version 3.1.0, request-identifier, JSON content type),
// then the same strict decoding its client applies to synchronous resolutions. Replies 204.
func resolveHandler(got chan<- received) http.Handler {
	return openvasp.APIChecks(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, int64(openvasp.MaxPayloadSize)))
		dec.DisallowUnknownFields()
		res := &openvasp.InquiryResolution{}
		err := dec.Decode(res)
		if err == nil {
			err = checkResolution(res)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		id := r.Header.Get(openvasp.RequestIdentifierHeader)
		emit("event", "resolution", "requestIdentifier", id, "version", null(res.Version),
			"approved", res.Approved, "rejected", null(res.Rejected))
		w.WriteHeader(http.StatusNoContent)
		select {
		case got <- received{id, res}:
		default:
		}
	}))
}

// serve binds first (so -listen 127.0.0.1:0 works), prints the real address, hands the public
// base URL (default https://<bound address>) to ready, then serves mTLS in the background.
func serve(addr, public string, conf *tls.Config, mux *http.ServeMux, ready func(base string)) {
	ln, err := net.Listen("tcp", addr)
	must(err)
	if public == "" {
		// On loopback, named localhost: TRISA's travel addresses cannot carry an IP with a port.
		public = "https://" + strings.Replace(ln.Addr().String(), "127.0.0.1:", "localhost:", 1)
	}
	ready(strings.TrimSuffix(public, "/"))
	emit("event", "listening", "address", ln.Addr().String())
	srv := &http.Server{Handler: mux, TLSConfig: conf.Clone(), ReadHeaderTimeout: 10 * time.Second}
	go func() { must(srv.ServeTLS(ln, "", "")) }()
}

// statusOf returns the HTTP status inside a library *StatusError (non-2xx answer), else nil.
func statusOf(err error) any {
	var se *openvasp.StatusError
	if errors.As(err, &se) {
		return se.Code
	}
	return nil
}

func main() {
	if len(os.Args) < 2 || (os.Args[1] != "serve" && os.Args[1] != "send") {
		fmt.Fprintln(os.Stderr, "usage: trp-counterpart serve|send [flags]   (trp-counterpart serve -h for flags)")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	str := func(name, value, usage string) *string { return fs.String(name, value, usage) }
	cert, key, ca := str("cert", "", "PEM leaf certificate (server and client)"), str("key", "", "PEM key of the leaf"), str("ca", "", "PEM CA trusted for peers")
	addr, public := str("listen", "", "address to serve on, e.g. 127.0.0.1:0"), str("public", "", "public base URL of this server (default https://<bound address>, 127.0.0.1 named localhost)")
	decide := str("decide", "approve", "serve: approve|reject|async")
	to, ivmsFile := str("to", "", "send: inquiry URL, travel address (ta...) or LNURL"), str("ivms", "", "send: IVMS101 JSON file (2020 key names)")
	asset, amount := str("asset", "ETH", "send: SLIP-0044 symbol or dti:<DTI>"), fs.Float64("amount", 0, "send: amount in decimal units")
	callback := str("callback", "", "send: callback for async resolutions (default <public>/resolve)")
	txid, canceled := str("txid", "", "send: after approval, confirm with this txid"), str("canceled", "", "send: after approval, confirm with this cancel reason")
	fs.Parse(os.Args[2:])

	conf, err := mtlsConfig(*cert, *key, *ca)
	must(err)
	// The library's client (cookie jar, 1 min timeout). v1.1.1 has no TLS option: set the transport.
	// Clone: http.Server adds "h2" to its TLSConfig's ALPN list in place, which would make a client
	// sharing it negotiate h2 and then speak HTTP/1.1 (the server then drops the request: EOF).
	client := openvasp.NewClient()
	client.Transport = &http.Transport{TLSClientConfig: conf.Clone()}
	got := make(chan received, 4)
	mux := http.NewServeMux()
	mux.Handle("/resolve", resolveHandler(got))

	if os.Args[1] == "serve" { // beneficiary: the library's own inquiry and confirmation handlers
		if *decide != "approve" && *decide != "reject" && *decide != "async" {
			must(errors.New("-decide must be approve, reject or async"))
		}
		b := &beneficiary{decide: *decide, client: client}
		mux.Handle("/transfers", openvasp.TransferInquiry(b))
		mux.Handle("/confirm/{id}", openvasp.TransferConfirmation(b))
		serve(*addr, *public, conf, mux, func(base string) { b.public = base })
		select {}
	}

	// send (originator): the IVMS101 file is parsed by the library's 2020-key JSON decoder.
	data, err := os.ReadFile(*ivmsFile)
	must(err)
	inq := &openvasp.Inquiry{TRP: &openvasp.TRPInfo{Address: *to}, Asset: &openvasp.Asset{},
		Amount: *amount, Callback: *callback, IVMS101: &ivms101.IdentityPayload{}}
	must(json.Unmarshal(data, inq.IVMS101))
	if dti, ok := strings.CutPrefix(*asset, "dti:"); ok {
		inq.Asset.DTI = dti
	} else if inq.Asset.SLIP044, err = slip0044.ParseCoinType(*asset); err != nil {
		must(fmt.Errorf("-asset %q: %w", *asset, err))
	}
	if *addr != "" { // also serve /resolve for async resolutions
		serve(*addr, *public, conf, mux, func(base string) { inq.Callback = cmp.Or(inq.Callback, base+"/resolve") })
	}
	inq.Callback = cmp.Or(inq.Callback, "https://127.0.0.1:9/resolve") // TRP requires one; nothing listens there

	// Inquiry: the library sets api-version, a fresh request-identifier (stored back into inq.TRP),
	// the content type, and adds ?t=i. The peer must answer exactly 200 with a strict body; the
	// 200 check comes first because v1.1.1's InquiryResolution() returns a typed-nil error otherwise.
	// The answer's TRP headers as the library reads them (TravelRuleResponse.Info): TRISA's server
	// sets api-version and echoes the request-identifier on its answers.
	res, status, info := &openvasp.InquiryResolution{}, any(nil), &openvasp.TRPInfo{}
	rep, err := client.Inquiry(inq)
	if err != nil {
		status = statusOf(err)
	} else {
		status, info = rep.StatusCode, rep.Info()
		if rep.StatusCode != http.StatusOK {
			err = fmt.Errorf("inquiry answered %s, TRP requires 200", rep.Status)
		} else if res, err = rep.InquiryResolution(); err == nil {
			err = checkResolution(res)
		}
		rep.Body.Close()
	}
	if res == nil {
		res = &openvasp.InquiryResolution{}
	}
	report(err, "event", "resolution", "status", status, "version", null(res.Version), "approved", res.Approved,
		"rejected", null(res.Rejected), "sentIdentifier", inq.TRP.RequestIdentifier,
		"apiVersion", null(info.APIVersion), "requestIdentifier", null(info.RequestIdentifier), "error", null(err))

	// {"version"} only: the decision is POSTed to our /resolve (needs -listen); wait up to 20 s.
	for deadline := time.After(20 * time.Second); res.Version != "" && *addr != ""; {
		select {
		case r := <-got:
			if r.id == inq.TRP.RequestIdentifier {
				res = r.res
			}
		case <-deadline:
			must(errors.New("no async resolution on /resolve within 20s"))
		}
	}
	if res.Approved == nil || (*txid == "" && *canceled == "") {
		return // rejected, pending without -listen, or no confirmation asked for: done
	}

	// Confirmation to the approval's callback with the same request identifier; any 2xx is fine.
	crep, err := client.Confirmation(&openvasp.Confirmation{TXID: *txid, Canceled: *canceled,
		TRP: &openvasp.TRPInfo{Address: res.Approved.Callback, RequestIdentifier: inq.TRP.RequestIdentifier}})
	status, info = statusOf(err), &openvasp.TRPInfo{}
	if crep != nil {
		crep.Body.Close()
		status, info = crep.StatusCode, crep.Info()
	}
	report(err, "event", "confirmed", "status", status, "apiVersion", null(info.APIVersion),
		"requestIdentifier", null(info.RequestIdentifier), "error", null(err))
}
