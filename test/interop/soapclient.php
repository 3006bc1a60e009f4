<?php
/**
 * Interop check with PHP's ext/soap SoapClient (test/interop/php-soapclient.test.ts).
 *
 *   php test/interop/soapclient.php <base-url> <token>
 *
 * For every endpoint and for SOAP 1.1 and 1.2: loads the live WSDL, lists the operations
 * SoapClient finds in it (__getFunctions), calls every one of them in document/literal
 * wrapped style (the token in the wsAuthHeader SOAP header on scoop.asmx) — an operation
 * without a call below is a failure — checks the answers against the demo content
 * (examples/demo-bundle), and makes one call with a wrong token, which must throw a
 * SoapFault. Prints a JSON summary on stdout (with the operations found, which the test
 * compares with the contract); exits 1 when any check failed.
 */

declare(strict_types=1);

const NS = 'http://scoop.example.org/api';
const WRONG_TOKEN = '22222222-2222-2222-2222-222222222222';

if ($argc !== 3) {
    fwrite(STDERR, "usage: php soapclient.php <base-url> <token>\n");
    exit(2);
}
[, $base, $token] = $argv;
$base = rtrim($base, '/');
$demo = dirname(__DIR__, 2) . '/examples/demo-bundle/files';

$failures = [];
$results = [];
$found = [];
$calls = 0;

function check(bool $ok, string $what): void
{
    global $failures, $current;
    if (!$ok) {
        $failures[] = "$current: $what";
    }
}

/** ext/soap turns a one-item array into the item itself (without SOAP_SINGLE_ELEMENT_ARRAYS). */
function items(mixed $wrapper, string $name): array
{
    if ($wrapper === null || !isset($wrapper->$name)) {
        return [];
    }
    return is_array($wrapper->$name) ? $wrapper->$name : [$wrapper->$name];
}

function client(string $url, int $version, ?string $token): SoapClient
{
    $client = new SoapClient("$url?wsdl", [
        'soap_version' => $version,
        'cache_wsdl' => WSDL_CACHE_NONE,
        'exceptions' => true,
        'trace' => 1,
    ]);
    if ($token !== null) {
        $client->__setSoapHeaders([new SoapHeader(NS, 'wsAuthHeader', ['token' => $token])]);
    }
    return $client;
}

/** The operation names of the WSDL's binding, from __getFunctions() ("ResultType name(ParamType $p)"). */
function operationNames(SoapClient $client): array
{
    $names = [];
    foreach ($client->__getFunctions() ?? [] as $signature) {
        if (preg_match('/^\S+ (\w+)\(/', $signature, $m) === 1) {
            $names[] = $m[1];
        }
    }
    return array_values(array_unique($names));
}

/** What the last request looked like on the wire: media type, action and header. */
function wire(SoapClient $client): array
{
    $headers = (string) $client->__getLastRequestHeaders();
    $request = (string) $client->__getLastRequest();
    preg_match('/^Content-Type:\s*([^;\r\n]+)/mi', $headers, $type);
    preg_match('/^SOAPAction:\s*"?([^"\r\n]*)"?/mi', $headers, $soapAction);
    preg_match('/;\s*action="([^"]*)"/i', $headers, $action);
    preg_match('/<(?:([\w-]+):)?Envelope\b[^>]*?\sxmlns(?::([\w-]+))?="([^"]+)"/', $request, $envelope);
    return [
        'contentType' => $type[1] ?? null,
        'action' => $soapAction[1] ?? ($action[1] ?? null),
        'envelope' => isset($envelope[3]) && $envelope[1] === ($envelope[2] ?? '') ? $envelope[3] : null,
        'tokenHeader' => str_contains($request, 'wsAuthHeader'),
    ];
}

$operations = [
    '/scoop/api/v5/scoop.asmx' => [
        'checkAnhangVorhanden' => function (SoapClient $c): array {
            $yes = $c->checkAnhangVorhanden(['anhangID' => 500])->checkAnhangVorhandenResult->anhangVorhanden;
            $no = $c->checkAnhangVorhanden(['anhangID' => 999])->checkAnhangVorhandenResult->anhangVorhanden;
            check($yes === true, 'checkAnhangVorhanden(500) is true');
            check($no === false, 'checkAnhangVorhanden(999) is false');
            return ['500' => $yes, '999' => $no];
        },
    ],
    '/scoop/api/v6/scoop.asmx' => [
        'getArtikelDetails' => function (SoapClient $c) use ($demo): array {
            $details = $c->getArtikelDetails(['artikelID' => 100])->getArtikelDetailsResult->artikelDetails;
            check(str_contains($details->text, '<h2>Neue Öffnungszeiten im Bürgeramt</h2>'), 'article 100 text');
            $areas = array_map(fn ($b) => $b->bereichID, items($details->bereiche, 'wsBereich'));
            $names = array_map(fn ($b) => $b->name, items($details->bereiche, 'wsBereich'));
            check($areas === [2, 1], 'article 100 areas are [2, 1]');
            check($names === ['Bürgerservice', 'Rathaus & Politik'], 'article 100 area names');
            $attachments = items($details->anhaenge, 'wsAnhang');
            $ids = array_map(fn ($a) => $a->anhangID, $attachments);
            check($ids === [500, 501], 'article 100 attachments are [500, 501]');
            $pdf = $attachments[0] ?? null;
            $pdfBytes = file_get_contents("$demo/anhaenge/oeffnungszeiten-buergeramt.pdf");
            check($pdf !== null && $pdf->data === $pdfBytes, 'attachment 500 data equals the PDF');
            check($pdf !== null && $pdf->size === strlen($pdfBytes), 'attachment 500 size');
            $txt = $attachments[1] ?? null;
            check(
                $txt !== null && $txt->data === file_get_contents("$demo/anhaenge/checkliste-personalausweis.txt"),
                'attachment 501 data equals the text file',
            );
            check(
                $txt !== null && $txt->beschreibung === 'Unterlagen & Gebühren (ermäßigt für Antragsteller < 24 Jahre)',
                'attachment 501 description unescaped',
            );
            $contacts = items($details->kontakte, 'wsKontakt');
            check(count($contacts) === 2 && $contacts[1]->einrichtung === null, 'nil einrichtung is null');
            check(count($contacts) === 2 && $contacts[1]->position === '', 'empty position is ""');
            return [
                'bereiche' => $areas,
                'anhaenge' => $ids,
                'pdfSha256' => $pdf !== null ? hash('sha256', $pdf->data) : null,
                'kontakte' => count($contacts),
            ];
        },
        'getAbonnierteNewsletter' => function (SoapClient $c): array {
            $result = $c->getAbonnierteNewsletter(['email' => 'Jörg.Müller@Example.org'])
                ->getAbonnierteNewsletterResult->newsletter;
            $ids = items($result, 'int');
            check($ids === [1, 2], 'Jörg.Müller@Example.org subscribes to [1, 2]');
            return ['newsletter' => $ids];
        },
    ],
    '/scoop/api/v7/scoop.asmx' => [
        'getNewsletter' => function (SoapClient $c): array {
            $list = items($c->getNewsletter([])->getNewsletterResult->newsletter, 'wsNewsletter');
            $ids = array_map(fn ($n) => $n->newsletterID, $list);
            check($ids === [1, 2], 'public newsletters are [1, 2]');
            check(($list[1]->name ?? null) === 'Veranstaltungen & Kultur', 'newsletter 2 name');
            return ['newsletter' => $ids];
        },
        'getCityAppBereich' => function (SoapClient $c): array {
            $area = $c->getCityAppBereich(['cityAppBereichID' => 10])->getCityAppBereichResult->cityAppBereich;
            check($area->cityAppBereichID === 10, 'city-app area 10 id');
            check($area->name === 'Freizeit & Kultur', 'city-app area 10 name');
            return ['name' => $area->name];
        },
    ],
    '/scoop/api/v6/public.asmx' => [
        'getBild' => function (SoapClient $c) use ($demo): array {
            $bild = $c->getBild([
                'bildID' => 200,
                'width' => 0,
                'height' => 0,
                'resizeModes' => ['resizeMode' => ['crop']],
            ])->getBildResult->bild;
            $bytes = file_get_contents("$demo/bilder/rathaus.jpg");
            check($bild->bildID === 200, 'image 200 id');
            check($bild->data === $bytes, 'image 200 data equals rathaus.jpg');
            check($bild->size === strlen($bytes), 'image 200 size');
            check($bild->istTeaserbild === true, 'image 200 is the teaser image');
            return ['size' => $bild->size, 'sha256' => hash('sha256', $bild->data)];
        },
        'getAnhang' => function (SoapClient $c) use ($demo): array {
            $anhang = $c->getAnhang(['anhangID' => 502])->getAnhangResult->anhang;
            check($anhang->anhangID === 502, 'attachment 502 id');
            check($anhang->filename === 'merkblatt-winterdienst.txt', 'attachment 502 filename');
            check(!isset($anhang->beschreibung), 'attachment 502 has no description');
            check($anhang->data === file_get_contents("$demo/anhaenge/merkblatt-winterdienst.txt"), 'attachment 502 data');
            return ['filename' => $anhang->filename, 'size' => $anhang->size];
        },
        'getBereich' => function (SoapClient $c): array {
            $bereich = $c->getBereich(['bereichID' => 1])->getBereichResult->bereich;
            check($bereich->bereichID === 1, 'area 1 id');
            check($bereich->name === 'Rathaus & Politik', 'area 1 name');
            return ['name' => $bereich->name];
        },
    ],
];

$versions = ['1.1' => SOAP_1_1, '1.2' => SOAP_1_2];
$envelopes = ['1.1' => 'http://schemas.xmlsoap.org/soap/envelope/', '1.2' => 'http://www.w3.org/2003/05/soap-envelope'];
$mediaTypes = ['1.1' => 'text/xml', '1.2' => 'application/soap+xml'];

foreach ($operations as $path => $ops) {
    $secured = str_contains($path, '/scoop.asmx');
    foreach ($versions as $label => $version) {
        $current = "$path SOAP $label";
        try {
            $client = client($base . $path, $version, $secured ? $token : null);
            $found[$path][$label] = operationNames($client);
            $uncalled = array_diff($found[$path][$label], array_keys($ops));
            check($uncalled === [], 'operations in the WSDL without a call here: ' . implode(', ', $uncalled));
            foreach ($ops as $name => $call) {
                $current = "$path SOAP $label $name";
                $observed = $call($client);
                $calls++;
                $sent = wire($client);
                check($sent['envelope'] === $envelopes[$label], "envelope namespace {$sent['envelope']}");
                check($sent['contentType'] === $mediaTypes[$label], "content type {$sent['contentType']}");
                check($sent['action'] === NS . "/$name", "action {$sent['action']}");
                check($sent['tokenHeader'] === $secured, 'wsAuthHeader sent exactly on scoop.asmx');
                $results[$path][$label][$name] = $observed;
            }
            if ($secured) {
                $current = "$path SOAP $label wrong token";
                $wrong = client($base . $path, $version, WRONG_TOKEN);
                $first = array_key_first($ops);
                $args = ['checkAnhangVorhanden' => ['anhangID' => 500], 'getArtikelDetails' => ['artikelID' => 100],
                    'getNewsletter' => []][$first];
                try {
                    $wrong->__soapCall($first, [$args]);
                    check(false, 'a wrong token throws a SoapFault');
                } catch (SoapFault $fault) {
                    $results[$path][$label]['wrongToken'] = ['faultcode' => $fault->faultcode, 'faultstring' => $fault->faultstring];
                }
            }
        } catch (Throwable $error) {
            $failures[] = "$current: " . get_class($error) . ': ' . $error->getMessage();
        }
    }
}

echo json_encode(
    [
        'php' => PHP_VERSION,
        'libxml' => LIBXML_DOTTED_VERSION,
        'calls' => $calls,
        'operations' => $found,
        'results' => $results,
        'failures' => $failures,
    ],
    JSON_PRETTY_PRINT | JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES,
), "\n";
exit($failures === [] ? 0 : 1);
