// SEP-5 derivation of the test accounts, against the test vectors of SEP-5 itself
// (stellar-protocol ecosystem/sep-0005.md): the BIP-39 seed, the m/44'/148' key and accounts 0..9.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair } from '@stellar/stellar-sdk';
import { bip39Seed, sep5Account, slip10Ed25519, testAccounts, TEST_MNEMONIC } from '../../../src/standalone/testAccounts.ts';

const VECTORS = [
  {
    mnemonic: 'illness spike retreat truth genius clock brain pass fit cave bargain toe',
    passphrase: '',
    seed: 'e4a5a632e70943ae7f07659df1332160937fad82587216a4c64315a0fb39497ee4a01f76ddab4cba68147977f3a147b6ad584c41808e8238a07f6cc4b582f186',
    key44148: 'e0eec84fe165cd427cb7bc9b6cfdef0555aa1cb6f9043ff1fe986c3c8ddd22e3',
    accounts: [
      ['GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6', 'SBGWSG6BTNCKCOB3DIFBGCVMUPQFYPA2G4O34RMTB343OYPXU5DJDVMN'],
      ['GBAW5XGWORWVFE2XTJYDTLDHXTY2Q2MO73HYCGB3XMFMQ562Q2W2GJQX', 'SCEPFFWGAG5P2VX5DHIYK3XEMZYLTYWIPWYEKXFHSK25RVMIUNJ7CTIS'],
      ['GAY5PRAHJ2HIYBYCLZXTHID6SPVELOOYH2LBPH3LD4RUMXUW3DOYTLXW', 'SDAILLEZCSA67DUEP3XUPZJ7NYG7KGVRM46XA7K5QWWUIGADUZCZWTJP'],
      ['GAOD5NRAEORFE34G5D4EOSKIJB6V4Z2FGPBCJNQI6MNICVITE6CSYIAE', 'SBMWLNV75BPI2VB4G27RWOMABVRTSSF7352CCYGVELZDSHCXWCYFKXIX'],
      ['GBCUXLFLSL2JE3NWLHAWXQZN6SQC6577YMAU3M3BEMWKYPFWXBSRCWV4', 'SCPCY3CEHMOP2TADSV2ERNNZBNHBGP4V32VGOORIEV6QJLXD5NMCJUXI'],
      ['GBRQY5JFN5UBG5PGOSUOL4M6D7VRMAYU6WW2ZWXBMCKB7GPT3YCBU2XZ', 'SCK27SFHI3WUDOEMJREV7ZJQG34SCBR6YWCE6OLEXUS2VVYTSNGCRS6X'],
      ['GBY27SJVFEWR3DUACNBSMJB6T4ZPR4C7ZXSTHT6GMZUDL23LAM5S2PQX', 'SDJ4WDPOQAJYR3YIAJOJP3E6E4BMRB7VZ4QAEGCP7EYVDW6NQD3LRJMZ'],
      ['GAY7T23Z34DWLSTEAUKVBPHHBUE4E3EMZBAQSLV6ZHS764U3TKUSNJOF', 'SA3HXJUCE2N27TBIZ5JRBLEBF3TLPQEBINP47E6BTMIWW2RJ5UKR2B3L'],
      ['GDJTCF62UUYSAFAVIXHPRBR4AUZV6NYJR75INVDXLLRZLZQ62S44443R', 'SCD5OSHUUC75MSJG44BAT3HFZL2HZMMQ5M4GPDL7KA6HJHV3FLMUJAME'],
      ['GBTVYYDIYWGUQUTKX6ZMLGSZGMTESJYJKJWAATGZGITA25ZB6T5REF44', 'SCJGVMJ66WAUHQHNLMWDFGY2E72QKSI3XGSBYV6BANDFUFE7VY4XNXXR'],
    ],
  },
  {
    mnemonic: 'cable spray genius state float twenty onion head street palace net private method loan turn phrase state blanket interest dry amazing dress blast tube',
    passphrase: 'p4ssphr4se',
    seed: 'd425d39998fb42ce4cf31425f0eaec2f0a68f47655ea030d6d26e70200d8ff8bd4326b4bdf562ea8640a1501ae93ccd0fd7992116da5dfa24900e570a742a489',
    key44148: 'c83c61dc97d37832f0f20e258c3ba4040a258800fd14abaff124a4dee114b17e',
    accounts: [
      ['GDAHPZ2NSYIIHZXM56Y36SBVTV5QKFIZGYMMBHOU53ETUSWTP62B63EQ', 'SAFWTGXVS7ELMNCXELFWCFZOPMHUZ5LXNBGUVRCY3FHLFPXK4QPXYP2X'],
      ['GDY47CJARRHHL66JH3RJURDYXAMIQ5DMXZLP3TDAUJ6IN2GUOFX4OJOC', 'SBQPDFUGLMWJYEYXFRM5TQX3AX2BR47WKI4FDS7EJQUSEUUVY72MZPJF'],
      ['GCLAQF5H5LGJ2A6ACOMNEHSWYDJ3VKVBUBHDWFGRBEPAVZ56L4D7JJID', 'SAF2LXRW6FOSVQNC4HHIIDURZL4SCGCG7UEGG23ZQG6Q2DKIGMPZV6BZ'],
    ],
  },
  {
    mnemonic: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
    passphrase: '',
    seed: '5eb00bbddcf069084889a8ab9155568165f5c453ccb85e70811aaed6f6da5fc19a5ac40b389cd370d086206dec8aa6c43daea6690f20ad3d8d48b2d2ce9e38e4',
    key44148: '03df7921b4f789040e361d07d5e4eddad277c376350d7b5d585400a0ef18f2f5',
    accounts: [
      ['GB3JDWCQJCWMJ3IILWIGDTQJJC5567PGVEVXSCVPEQOTDN64VJBDQBYX', 'SBUV3MRWKNS6AYKZ6E6MOUVF2OYMON3MIUASWL3JLY5E3ISDJFELYBRZ'],
      ['GDVSYYTUAJ3ACHTPQNSTQBDQ4LDHQCMNY4FCEQH5TJUMSSLWQSTG42MV', 'SCHDCVCWGAKGIMTORV6K5DYYV3BY4WG3RA4M6MCBGJLHUCWU2MC6DL66'],
      ['GAKFARYSPI33KUJE7HYLT47DCX2PFWJ77W3LZMRBPSGPGYPMSDBE7W7X', 'SALJ5LPBTXCFML2CQ7ORP7WJNJOZSVBVRQAAODMVHMUF4P4XXFZB7MKY', 9],
    ],
  },
] as const;

test('SEP-5 test vectors: BIP-39 seed, the m/44\'/148\' key and the accounts', () => {
  for (const v of VECTORS) {
    const seed = bip39Seed(v.mnemonic, v.passphrase);
    assert.equal(seed.toString('hex'), v.seed);
    assert.equal(slip10Ed25519(seed, [44, 148]).toString('hex'), v.key44148);
    v.accounts.forEach((a, i) => {
      const index = (a as readonly unknown[])[2] as number | undefined ?? i;
      const account = sep5Account(v.mnemonic, index, v.passphrase);
      assert.equal(account.publicKey, a[0], `${v.mnemonic.slice(0, 12)}… account ${index}`);
      assert.equal(account.secret, a[1]);
    });
  }
});

test('test accounts: SEP-5 accounts of the public mnemonic, secrets that sign for their addresses', () => {
  const accounts = testAccounts(3);
  assert.deepEqual(accounts.map((a) => a.index), [0, 1, 2]);
  for (const a of accounts) {
    assert.deepEqual(a, sep5Account(TEST_MNEMONIC, a.index));
    assert.equal(Keypair.fromSecret(a.secret).publicKey(), a.publicKey);
  }
  assert.equal(new Set(accounts.map((a) => a.publicKey)).size, 3);
});
