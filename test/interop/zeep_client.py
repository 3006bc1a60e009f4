#!/usr/bin/python3
"""Interop check with Python zeep (Debian python3-zeep), run by zeep.test.ts.

usage: zeep_client.py <base-url> <token>

For each endpoint it loads the WSDL from the server, calls every operation on the SOAP 1.1
port (<svc>Soap) and on the SOAP 1.2 port (<svc>Soap12), checks the answers against the
demo content (examples/demo-bundle), and makes one call per token-protected endpoint and
port with a wrong token, which must raise zeep.exceptions.Fault. zeep may reach nothing
but the server under test. Prints a JSON summary on stdout; exit code 0 when every check
passed, 1 otherwise.
"""

import json
import sys
import traceback
from pathlib import Path

import zeep
from zeep.exceptions import Fault
from zeep.transports import Transport

NS = "http://scoop.example.org/api"
WRONG_TOKEN = "22222222-2222-2222-2222-222222222222"
FILES = Path(__file__).resolve().parents[2] / "examples" / "demo-bundle" / "files"
AUTH_FAILED = "Authentication failed: a valid token is required."
FAULT_CODE = {"Soap": "soap:Client", "Soap12": "soap:Sender"}
MEDIA_TYPE = {"Soap": "text/xml", "Soap12": "application/soap+xml"}


def file_bytes(name):
    return (FILES / name).read_bytes()


class LocalOnlyTransport(Transport):
    """Refuses every URL outside the server under test; records what it loads and posts."""

    def __init__(self, base_url):
        super().__init__(timeout=10, operation_timeout=10)
        self.session.trust_env = False  # no proxy from the environment
        self.base_url = base_url
        self.loaded = []
        self.content_types = []

    def _check(self, url):
        if not url.startswith(self.base_url + "/"):
            raise RuntimeError(f"zeep tried to reach {url}, outside the server under test")

    def load(self, url):
        self._check(url)
        self.loaded.append(url)
        return super().load(url)

    def post(self, address, message, headers):
        self._check(address)
        self.content_types.append(headers.get("Content-Type", ""))
        return super().post(address, message, headers)


def expect(actual, expected, what):
    if actual != expected:
        raise AssertionError(f"{what}: expected {expected!r}, got {actual!r}")


# zeep returns the single member of a single-member wrapper, so each call below gives
# the content of <op>Result's only child (a bool, an ArrayOfInt, a wsBereich, ...).


def check_artikel_100(d):
    expect(d.text.startswith("<h2>Neue Öffnungszeiten im Bürgeramt</h2>"), True, "text")
    expect("termine?dienst=ausweis&amp;standort=mitte" in d.text, True, "HTML text kept as written")
    expect([(b.bereichID, b.name) for b in d.bereiche.wsBereich],
           [(2, "Bürgerservice"), (1, "Rathaus & Politik")], "bereiche")
    expect(d.cityAppBereiche, None, "cityAppBereiche (empty)")
    pdf, txt = d.anhaenge.wsAnhang
    expect([a.anhangID for a in d.anhaenge.wsAnhang], [500, 501], "anhaenge")
    expect((pdf.filename, pdf.mimetype, pdf.size, pdf.sort),
           ("oeffnungszeiten-buergeramt.pdf", "application/pdf", 4782, 1), "anhang 500")
    expect(pdf.data, file_bytes("anhaenge/oeffnungszeiten-buergeramt.pdf"), "anhang 500 data")
    expect(txt.beschreibung, "Unterlagen & Gebühren (ermäßigt für Antragsteller < 24 Jahre)", "beschreibung 501")
    expect(txt.data, file_bytes("anhaenge/checkliste-personalausweis.txt"), "anhang 501 data")
    expect([(link.sort, link.art, link.url) for link in d.links.wsLink],
           [(1, "extern", "https://www.beispielstadt.example/termine?dienst=ausweis&standort=mitte"),
            (2, "intern", "/buergerservice/gebuehren")], "links")
    personal, collective = d.kontakte.wsKontakt
    expect((personal.einrichtung.einrichtungID, personal.einrichtung.name), (7, "Bürgeramt Mitte"), "einrichtung")
    expect(personal.name, "Sabine Größler", "kontakt name")
    # <einrichtung xsi:nil="true"/>: zeep 4.2 gives an object of Nones rather than None
    # (python-zeep issue #823), so accept either.
    nil = collective.einrichtung
    expect(nil is None or (nil.einrichtungID is None and nil.name is None), True, "nil einrichtung")
    # <position /> is an empty string on the wire; zeep reads an empty element as None.
    expect(collective.position in ("", None), True, "empty position")
    expect(collective.fax, None, "no fax")


def check_bild_200(b):
    expect((b.bildID, b.filename, b.mimetype, b.size, b.istTeaserbild, b.sort),
           (200, "rathaus.jpg", "image/jpeg", 101261, True, 1), "bild")
    expect(b.bildrechte, "© Stadt Beispielstadt", "bildrechte")
    expect(b.data, file_bytes("bilder/rathaus.jpg"), "bild data")


def check_anhang_502(a):
    expect((a.anhangID, a.filename, a.name, a.mimetype, a.size, a.sort),
           (502, "merkblatt-winterdienst.txt", "Merkblatt Winterdienst", "text/plain", 620, 1), "anhang")
    expect(a.beschreibung, None, "no beschreibung")
    expect(a.data, file_bytes("anhaenge/merkblatt-winterdienst.txt"), "anhang data")


# path, service name, token needed, [(operation, kwargs, check)]
ENDPOINTS = [
    ("/scoop/api/v5/scoop.asmx", "scoop", True, [
        ("checkAnhangVorhanden", {"anhangID": 500}, lambda r: expect(r, True, "500 exists")),
        ("checkAnhangVorhanden", {"anhangID": 999}, lambda r: expect(r, False, "999 does not exist")),
    ]),
    ("/scoop/api/v6/scoop.asmx", "scoop", True, [
        ("getArtikelDetails", {"artikelID": 100}, check_artikel_100),
        ("getAbonnierteNewsletter", {"email": "Jörg.Müller@Example.org"},
         lambda r: expect(r.int, [1, 2], "subscriptions")),
    ]),
    ("/scoop/api/v7/scoop.asmx", "scoop", True, [
        ("getNewsletter", {}, lambda r: expect(
            [(n.newsletterID, n.name) for n in r.wsNewsletter],
            [(1, "Amtsblatt der Stadt Beispielstadt"), (2, "Veranstaltungen & Kultur")], "newsletters")),
        ("getCityAppBereich", {"cityAppBereichID": 10}, lambda r: expect(
            (r.cityAppBereichID, r.name), (10, "Freizeit & Kultur"), "cityAppBereich")),
    ]),
    ("/scoop/api/v6/public.asmx", "public", False, [
        ("getBild", {"bildID": 200, "width": 0, "height": 0, "resizeModes": {"resizeMode": ["crop"]}},
         check_bild_200),
        ("getAnhang", {"anhangID": 502}, check_anhang_502),
        ("getBereich", {"bereichID": 1}, lambda r: expect((r.bereichID, r.name), (1, "Rathaus & Politik"), "bereich")),
    ]),
]


def run(base_url, token):
    bindings = []
    faults = []
    loaded = []
    for path, service_name, needs_token, calls in ENDPOINTS:
        transport = LocalOnlyTransport(base_url)
        client = zeep.Client(f"{base_url}{path}?wsdl", transport=transport)
        loaded.extend(transport.loaded)
        port_operations = {}
        for suffix in ("Soap", "Soap12"):
            port = f"{service_name}{suffix}"
            service = client.bind(service_name, port)
            port_operations[port] = sorted(client.wsdl.services[service_name].ports[port].binding.all())
            headers = {"wsAuthHeader": {"token": token}} if needs_token else None
            entry = {"endpoint": path, "port": port, "calls": 0, "ok": 0, "operations": [], "failures": []}
            first_post = len(transport.content_types)
            for operation, kwargs, check in calls:
                entry["calls"] += 1
                try:
                    extra = {"_soapheaders": headers} if headers else {}
                    check(getattr(service, operation)(**kwargs, **extra))
                    entry["ok"] += 1
                    if operation not in entry["operations"]:
                        entry["operations"].append(operation)
                except Exception as error:  # noqa: BLE001 - every failure goes into the summary
                    entry["failures"].append(f"{operation}: {type(error).__name__}: {error}")
            entry["contentTypes"] = sorted({t.split(";")[0] for t in transport.content_types[first_post:]})
            entry["portOperations"] = port_operations[port]
            if entry["contentTypes"] != [MEDIA_TYPE[suffix]]:
                entry["failures"].append(f"sent as {entry['contentTypes']}, not {MEDIA_TYPE[suffix]}")
            bindings.append(entry)

            if needs_token:
                operation, kwargs, _ = calls[0]
                fault = {"endpoint": path, "port": port, "operation": operation, "ok": False}
                try:
                    getattr(service, operation)(**kwargs, _soapheaders={"wsAuthHeader": {"token": WRONG_TOKEN}})
                    fault["error"] = "no fault raised"
                except Fault as error:
                    code = error.detail.find(f"{{{NS}}}errorCode") if error.detail is not None else None
                    fault.update(code=error.code, message=error.message,
                                 errorCode=code.text if code is not None else None)
                    fault["ok"] = (error.code == FAULT_CODE[suffix] and error.message == AUTH_FAILED
                                   and fault["errorCode"] == "AUTH_FAILED")
                except Exception as error:  # noqa: BLE001
                    fault["error"] = f"{type(error).__name__}: {error}"
                faults.append(fault)
    ok = all(not b["failures"] and b["ok"] == b["calls"] for b in bindings) and all(f["ok"] for f in faults)
    return {"zeep": zeep.__version__, "ok": ok, "bindings": bindings, "faults": faults, "loaded": loaded}


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        summary = run(sys.argv[1].rstrip("/"), sys.argv[2])
    except Exception:  # noqa: BLE001 - e.g. a WSDL zeep cannot read
        traceback.print_exc()
        return 1
    print(json.dumps(summary, ensure_ascii=False, indent=2))
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
